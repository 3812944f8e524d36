/**
 * The builds override admission webhook's handler: the Secrets the override ConfigMap names, a
 * SubjectAccessReview per Secret as the request's user, and the refusal of override-references.ts.
 */
import type { V1ConfigMap } from "@kubernetes/client-node";
import type { RestClient } from "../../kube/rest.ts";
import type { AdmissionHandler } from "../../webhook/admission-review.ts";
import { secretAdmission } from "../../webhook/secret-admission.ts";
import {
  type OverrideSecretReference,
  overrideSecretReferences,
  overrideSecretRefusal,
} from "./override-references.ts";

/** The path the API server posts override ConfigMap reviews to. */
export const overrideAdmissionPath = "/validate/builds-overrides";

export const overrideAdmission = (rest: Pick<RestClient, "request">): AdmissionHandler =>
  secretAdmission<V1ConfigMap & { metadata?: { namespace?: string } }, OverrideSecretReference>(rest, {
    kind: "ConfigMap",
    carried: (configMap) => configMap.kind === "ConfigMap",
    references: overrideSecretReferences,
    refusal: overrideSecretRefusal,
  });
