/**
 * The ValidatingWebhookConfiguration of the ImageBuild admission webhook. Its matchConditions (CEL,
 * evaluated by the API server) call the webhook only when a CREATE or a change of `spec` has a build
 * argument from a Secret: builds without secret arguments, status writes and metadata-only changes
 * (the operator's finalizer) never wait for it.
 */
import { ImageBuildKind } from "../../apis/builds/imagebuild.ts";
import {
  specWritten,
  validatingWebhookConfiguration,
  type WebhookConfigurationOptions,
} from "../../webhook/configuration.ts";
import { imageBuildAdmissionPath } from "./review.ts";

export const imageBuildWebhookName = "secret-build-args.builds.slipway.dev";

export const matchConditions = [
  specWritten,
  {
    name: "secret-build-args",
    expression: "has(object.spec.buildArgs) && object.spec.buildArgs.exists(a, has(a.valueFrom))",
  },
];

export function imageBuildWebhookConfiguration(options: WebhookConfigurationOptions) {
  return validatingWebhookConfiguration(
    {
      name: imageBuildWebhookName,
      path: imageBuildAdmissionPath,
      resource: ImageBuildKind,
      matchConditions,
    },
    options,
  );
}
