/**
 * Which of the Secrets an admission request names its user may `get` itself: one
 * SubjectAccessReview per Secret as that user (its name, uid, groups and extra), asked as the
 * operator (it needs `create` on subjectaccessreviews).
 */
import { type ReviewedUser, userMay } from "../kube/access-review.ts";
import type { RestClient } from "../kube/rest.ts";

export async function readableSecrets(
  rest: Pick<RestClient, "request">,
  user: ReviewedUser,
  namespace: string,
  secrets: Iterable<string>,
): Promise<Set<string>> {
  const readable = new Set<string>();
  for (const name of new Set(secrets)) {
    const may = await userMay(rest, user, {
      resourceAttributes: { namespace, verb: "get", group: "", resource: "secrets", name },
    });
    if (may) readable.add(name);
  }
  return readable;
}
