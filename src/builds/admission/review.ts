/**
 * The ImageBuild admission webhook's handler: the Secrets the build's arguments take, a
 * SubjectAccessReview per Secret as the request's user, and the refusal of secret-references.ts.
 * Runs only for requests that reference Secrets (the webhook configuration's matchConditions), so
 * builds without them never wait for it.
 */
import type { ImageBuild } from "../../apis/builds/imagebuild.ts";
import type { RestClient } from "../../kube/rest.ts";
import type { AdmissionHandler } from "../../webhook/admission-review.ts";
import { secretAdmission } from "../../webhook/secret-admission.ts";
import { secretReferences, secretRefusal } from "./secret-references.ts";

/** The path the API server posts ImageBuild reviews to. */
export const imageBuildAdmissionPath = "/validate/imagebuilds";

export const imageBuildAdmission = (rest: Pick<RestClient, "request">): AdmissionHandler =>
  secretAdmission<ImageBuild, ReturnType<typeof secretReferences>[number]>(rest, {
    kind: "ImageBuild",
    references: secretReferences,
    refusal: secretRefusal,
  });
