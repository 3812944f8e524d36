/**
 * An admission handler for a kind whose objects name Secrets: the Secrets an object names, a
 * SubjectAccessReview per Secret as the request's user (secret-access.ts), and the kind's refusal
 * naming the first field whose Secret that user may not get. The ImageBuild, Provider and builds
 * override (ConfigMap) webhooks are this rule with their own references and messages.
 */
import type { RestClient } from "../kube/rest.ts";
import { type AdmissionHandler, type AdmissionRequest, admit, refuse } from "./admission-review.ts";
import { readableSecrets } from "./secret-access.ts";
import { firstUnreadable, type NamedSecret, secretsToReview } from "./secret-references.ts";

export interface SecretReferencingKind<T, Reference> {
  /** The kind's name, for a request that carries none. */
  kind: string;
  /** Whether the request's object is one of the kind's (default: it has a `spec`). */
  carried?: (object: T) => boolean;
  references: (object: T) => Reference[];
  /** The refusal naming `refused`, the first reference whose Secret `user` may not get. */
  refusal: (refused: Reference, user: string, namespace: string) => string;
}

/** The handler, asking the API server as the operator (it needs `create` on subjectaccessreviews). */
export function secretAdmission<
  T extends { metadata?: { namespace?: string } },
  Reference extends NamedSecret,
>(rest: Pick<RestClient, "request">, rule: SecretReferencingKind<T, Reference>): AdmissionHandler {
  return async (request: AdmissionRequest) => {
    const object = request.object as T | undefined;
    const namespace = request.namespace ?? object?.metadata?.namespace;
    const carried = rule.carried ?? ((candidate: T) => (candidate as { spec?: unknown }).spec !== undefined);
    if (!object || !carried(object) || !namespace)
      return refuse(request.uid, `the request carries no ${rule.kind}`, 400);
    const references = rule.references(object);
    if (references.length === 0) return admit(request.uid);
    const user = request.userInfo.username;
    if (!user) return refuse(request.uid, "the request has no user to check the Secrets for");
    const readable = await readableSecrets(
      rest,
      { ...request.userInfo, username: user },
      namespace,
      secretsToReview(references),
    );
    const refused = firstUnreadable(references, readable);
    return refused ? refuse(request.uid, rule.refusal(refused, user, namespace)) : admit(request.uid);
  };
}
