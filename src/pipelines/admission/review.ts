/**
 * The Provider admission webhook's handler: the Secrets the Provider names, a SubjectAccessReview
 * per Secret as the request's user, and the refusal of secret-references.ts. Runs only for a CREATE
 * or a change of `spec` that may name a Secret (the configuration's matchConditions): a change of
 * the endpoint is checked too, since it decides where the Secret's value goes.
 */
import type { Provider } from "../../apis/pipelines/provider.ts";
import type { RestClient } from "../../kube/rest.ts";
import type { AdmissionHandler } from "../../webhook/admission-review.ts";
import { secretAdmission } from "../../webhook/secret-admission.ts";
import {
  type ProviderSecretReference,
  providerSecretReferences,
  providerSecretRefusal,
} from "./secret-references.ts";

/** The path the API server posts Provider reviews to. */
export const providerAdmissionPath = "/validate/providers";

export const providerAdmission = (rest: Pick<RestClient, "request">): AdmissionHandler =>
  secretAdmission<Provider, ProviderSecretReference>(rest, {
    kind: "Provider",
    references: providerSecretReferences,
    refusal: providerSecretRefusal,
  });
