/**
 * The Provider admission webhook's handler: the Secrets the Provider names, a SubjectAccessReview
 * per Secret as the request's user, and the refusal of secret-references.ts. Runs only for a CREATE
 * or a change of `spec` that may name a Secret (the configuration's matchConditions): a change of
 * the endpoint is checked too, since it decides where the Secret's value goes.
 */
import type { Provider } from "../../apis/pipelines/provider.ts";
import type { RestClient } from "../../kube/rest.ts";
import {
  type AdmissionHandler,
  type AdmissionRequest,
  admit,
  refuse,
} from "../../webhook/admission-review.ts";
import { readableSecrets } from "../../webhook/secret-access.ts";
import { providerSecretReferences, providerSecretRefusal } from "./secret-references.ts";

/** The path the API server posts Provider reviews to. */
export const providerAdmissionPath = "/validate/providers";

/** The handler, asking the API server as the operator (it needs `create` on subjectaccessreviews). */
export function providerAdmission(rest: Pick<RestClient, "request">): AdmissionHandler {
  return async (request: AdmissionRequest) => {
    const provider = request.object as Provider | undefined;
    const namespace = request.namespace ?? provider?.metadata?.namespace;
    if (!provider?.spec || !namespace) return refuse(request.uid, "the request carries no Provider", 400);
    const references = providerSecretReferences(provider);
    if (references.length === 0) return admit(request.uid);
    const user = request.userInfo.username;
    if (!user) return refuse(request.uid, "the request has no user to check the Secrets for");
    const readable = await readableSecrets(
      rest,
      { ...request.userInfo, username: user },
      namespace,
      references.map((reference) => reference.secret),
    );
    const refusal = providerSecretRefusal(references, readable, user, namespace);
    return refusal ? refuse(request.uid, refusal) : admit(request.uid);
  };
}
