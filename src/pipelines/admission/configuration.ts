/**
 * The ValidatingWebhookConfiguration of the Provider admission webhook: called only for a CREATE or
 * a change of `spec` where the parameters may name a Secret, so Providers without one, status
 * writes and metadata changes never wait for it.
 */
import { ProviderKind } from "../../apis/pipelines/provider.ts";
import {
  specWritten,
  validatingWebhookConfiguration,
  type WebhookConfigurationOptions,
} from "../../webhook/configuration.ts";
import { providerAdmissionPath } from "./review.ts";
import { secretReferencesExpression } from "./secret-references.ts";

export const providerWebhookName = "secret-parameters.pipelines.slipway.dev";

export const providerMatchConditions = [
  specWritten,
  { name: "secret-parameters", expression: secretReferencesExpression() },
];

export function providerWebhookConfiguration(options: WebhookConfigurationOptions) {
  return validatingWebhookConfiguration(
    {
      name: providerWebhookName,
      path: providerAdmissionPath,
      resource: ProviderKind,
      matchConditions: providerMatchConditions,
    },
    options,
  );
}
