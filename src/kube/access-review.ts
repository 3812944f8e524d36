/**
 * Access reviews: may this user (a SubjectAccessReview, as an authenticator reported the user: name,
 * uid, groups, extra; asked as the client's identity, which needs `create` on subjectaccessreviews),
 * or the client's own identity (a SelfSubjectAccessReview), do this?
 */
import type { RestClient } from "./rest.ts";

export interface ReviewedUser {
  username: string;
  uid?: string;
  groups?: string[];
  extra?: Record<string, string[]>;
}

export type AccessAttributes =
  | {
      resourceAttributes: {
        namespace?: string;
        verb: string;
        group: string;
        resource: string;
        name?: string;
      };
    }
  | { nonResourceAttributes: { path: string; verb: string } };

type Reviewer = Pick<RestClient, "request">;

async function allowed(
  rest: Reviewer,
  review: { kind: string; plural: string },
  spec: Record<string, unknown>,
): Promise<boolean> {
  const answer = await rest.request<{ status?: { allowed?: boolean } }>(
    "POST",
    `/apis/authorization.k8s.io/v1/${review.plural}`,
    { body: { apiVersion: "authorization.k8s.io/v1", kind: review.kind, spec } },
  );
  return answer.status?.allowed === true;
}

export const userMay = (rest: Reviewer, user: ReviewedUser, attributes: AccessAttributes): Promise<boolean> =>
  allowed(
    rest,
    { kind: "SubjectAccessReview", plural: "subjectaccessreviews" },
    {
      user: user.username,
      ...(user.uid ? { uid: user.uid } : {}),
      ...(user.groups ? { groups: user.groups } : {}),
      ...(user.extra ? { extra: user.extra } : {}),
      ...attributes,
    },
  );

/** Whether the client's own identity (the caller, for the server's caller client) may do this. */
export const selfMay = (rest: Reviewer, attributes: AccessAttributes): Promise<boolean> =>
  allowed(rest, { kind: "SelfSubjectAccessReview", plural: "selfsubjectaccessreviews" }, attributes);
