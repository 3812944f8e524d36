/**
 * The ImageBuild admission webhook's handler: the Secrets the build's arguments take, a
 * SubjectAccessReview per Secret as the request's user, and the refusal of secret-references.ts.
 * Runs only for requests that reference Secrets (the webhook configuration's matchConditions), so
 * builds without them never wait for it.
 */
import type { ImageBuild } from "../../apis/builds/imagebuild.ts";
import type { RestClient } from "../../kube/rest.ts";
import {
  type AdmissionHandler,
  type AdmissionRequest,
  admit,
  refuse,
} from "../../webhook/admission-review.ts";
import { readableSecrets } from "../../webhook/secret-access.ts";
import { secretReferences, secretRefusal, secretsToReview } from "./secret-references.ts";

/** The path the API server posts ImageBuild reviews to. */
export const imageBuildAdmissionPath = "/validate/imagebuilds";

/** The handler, asking the API server as the operator (it needs `create` on subjectaccessreviews). */
export function imageBuildAdmission(rest: Pick<RestClient, "request">): AdmissionHandler {
  return async (request: AdmissionRequest) => {
    const build = request.object as ImageBuild | undefined;
    const namespace = request.namespace ?? build?.metadata?.namespace;
    if (!build?.spec || !namespace) return refuse(request.uid, "the request carries no ImageBuild", 400);
    const references = secretReferences(build);
    if (references.length === 0) return admit(request.uid);
    const user = request.userInfo.username;
    if (!user) return refuse(request.uid, "the request has no user to check the Secrets for");
    const readable = await readableSecrets(
      rest,
      { ...request.userInfo, username: user },
      namespace,
      secretsToReview(references),
    );
    const refusal = secretRefusal(references, readable, user, namespace);
    return refusal ? refuse(request.uid, refusal) : admit(request.uid);
  };
}
