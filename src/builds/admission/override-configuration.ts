/**
 * The ValidatingWebhookConfiguration of the builds override admission webhook: on ConfigMaps, but
 * its matchConditions (CEL, evaluated by the API server) call it only for the override ConfigMap
 * (`slipway-builds`) when a CREATE or an UPDATE writes its data: no other ConfigMap write, and no
 * metadata-only change of the override, ever waits for it.
 */
import { configMapType } from "../../kube/core-types.ts";
import {
  validatingWebhookConfiguration,
  type WebhookConfigurationOptions,
} from "../../webhook/configuration.ts";
import { overrideConfigMapName } from "../override.ts";
import { overrideAdmissionPath } from "./override-review.ts";

export const overrideWebhookName = "secret-override.builds.slipway.dev";

export const overrideMatchConditions = [
  {
    name: "builds-override",
    expression: `has(object.metadata.name) && object.metadata.name == '${overrideConfigMapName}'`,
  },
  {
    name: "data-written",
    expression:
      "has(object.data) && (request.operation == 'CREATE' || !has(oldObject.data) || object.data != oldObject.data)",
  },
];

export function overrideWebhookConfiguration(options: WebhookConfigurationOptions) {
  return validatingWebhookConfiguration(
    {
      name: overrideWebhookName,
      path: overrideAdmissionPath,
      resource: configMapType,
      matchConditions: overrideMatchConditions,
    },
    options,
  );
}
