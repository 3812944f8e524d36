/**
 * `node --import` this module (slipway dev starts its operator so) to resolve the cluster's Service
 * names through the API server of the kubeconfig `$SLIPWAY_DEV_SERVICE_LOOKUP` names
 * (service-lookup.ts); unset: nothing changes.
 */
import { installServiceLookup, serviceLookupEnvironmentVariable } from "./service-lookup.ts";

const kubeconfig = process.env[serviceLookupEnvironmentVariable];
if (kubeconfig) installServiceLookup(kubeconfig);
