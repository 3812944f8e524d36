import type { BuildsConfig } from "../builds/config.ts";
import { imageBuildController } from "../builds/controller.ts";
import type { ControllerSpec } from "../kube/types.ts";
import type { ArgoSettings } from "../pipelines/argo/backend.ts";
import { backendsFor } from "../pipelines/backends.ts";
import { pipelineControllers } from "../pipelines/controllers/index.ts";
import type { EventsOptions } from "../pipelines/events/dispatcher.ts";
import {
  ambientAllowed,
  ambientNamespacesVariable,
  type OutboundPolicy,
  outboundPolicy,
} from "../pipelines/outbound-policy.ts";
import {
  allowlistPolicy,
  eitherPolicy,
  type ServiceAccountPolicy,
} from "../pipelines/provider-service-accounts.ts";
import { platformBuildsVoucher } from "../platform/builds-wiring.ts";
import { platformControllers } from "../platform/controllers.ts";
import { platformPipelinesAccount } from "../platform/pipelines-account.ts";

/** The operator's policy: the allowlist's entries (`namespace/name`, `*\/name`), or the platform's own account. */
export function providerServiceAccountPolicy(entries: readonly string[]): ServiceAccountPolicy {
  return eitherPolicy(allowlistPolicy(entries), platformPipelinesAccount);
}

/** Every controller `slipway operator` runs. Each capability adds its line here. */
export function allControllers(
  options: {
    builds?: BuildsConfig;
    devMode?: boolean;
    events?: EventsOptions;
    /** The allowlist of ServiceAccounts a Provider may name (`namespace/name`, `*\/name`). */
    providerServiceAccounts?: string[];
    /** What a tenant-named endpoint (kfp, vertex, event sink) may be; default: the built-in refusals only. */
    outbound?: OutboundPolicy;
    /** The cluster's node and pod networks (the installer's SLIPWAY_OUTBOUND_DENY): the api-server's default trusted proxies. */
    clusterNetworks?: readonly string[];
    /** Where an Argo workflow controller installed outside a Provider's namespace serves (SLIPWAY_ARGO_NAMESPACES). */
    argo?: ArgoSettings;
  } = {},
): ControllerSpec[] {
  const serviceAccounts = providerServiceAccountPolicy(options.providerServiceAccounts ?? []);
  const outbound = options.outbound ?? outboundPolicy();
  return [
    ...platformControllers({ clusterNetworks: options.clusterNetworks ?? [] }),
    imageBuildController({
      config: options.builds,
      devMode: options.devMode ?? false,
      overrideVoucher: platformBuildsVoucher,
      // one setting for the operator's ambient cloud credentials: vertex Providers and build stores
      ambientCredentials: {
        allows: (namespace) => ambientAllowed(outbound, namespace),
        setting: ambientNamespacesVariable,
      },
    }),
    ...pipelineControllers({
      backends: backendsFor(outbound, options.argo),
      events: { ...options.events, outbound },
      serviceAccounts,
    }),
  ];
}
