/**
 * One SubjectAccessReview: may this user (as an authenticator reported it: name, uid, groups, extra)
 * do this? Asked as the caller's client identity, which needs `create` on subjectaccessreviews.
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

export async function userMay(
  rest: Pick<RestClient, "request">,
  user: ReviewedUser,
  attributes: AccessAttributes,
): Promise<boolean> {
  const review = await rest.request<{ status?: { allowed?: boolean } }>(
    "POST",
    "/apis/authorization.k8s.io/v1/subjectaccessreviews",
    {
      body: {
        apiVersion: "authorization.k8s.io/v1",
        kind: "SubjectAccessReview",
        spec: {
          user: user.username,
          ...(user.uid ? { uid: user.uid } : {}),
          ...(user.groups ? { groups: user.groups } : {}),
          ...(user.extra ? { extra: user.extra } : {}),
          ...attributes,
        },
      },
    },
  );
  return review.status?.allowed === true;
}
