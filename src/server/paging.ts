/**
 * Paging of the list routes: `limit` and `continue` go to the Kubernetes API's own list call (made
 * as the caller), and its `continue` token, `remainingItemCount` and `resourceVersion` come back.
 */
import { type Static, Type } from "@sinclair/typebox";

/** The most objects one page may ask for (kubectl's default chunk size, the informer's page). */
export const maxPageSize = 500;
/** A list asked for without `limit` is one page of this many. */
export const defaultPageSize = maxPageSize;

export const PageQuery = Type.Object(
  {
    limit: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: maxPageSize,
        description: `Objects in this page, a whole number from 1 to ${maxPageSize} (default ${defaultPageSize})`,
      }),
    ),
    continue: Type.Optional(
      Type.String({
        minLength: 1,
        description: "The `continue` token of the previous page (the API server's, passed through)",
      }),
    ),
  },
  { additionalProperties: false },
);
export type PageQuery = Static<typeof PageQuery>;

/** What a page adds to its `items`. */
export const PageFields = {
  continue: Type.Optional(
    Type.String({ description: "Ask for the next page with this token; absent on the last page" }),
  ),
  remainingItemCount: Type.Optional(
    Type.Integer({ description: "Objects after this page, when the API server can tell" }),
  ),
  resourceVersion: Type.Optional(Type.String({ description: "The resourceVersion the list was read at" })),
};

/** The Kubernetes client's list parameters for a page asked for with `query`. */
export function listParameters(query: PageQuery): { limit: number; _continue?: string } {
  return { limit: query.limit ?? defaultPageSize, ...(query.continue ? { _continue: query.continue } : {}) };
}

export interface ListMetadata {
  metadata?: { continue?: string; remainingItemCount?: number; resourceVersion?: string };
}

/** The page fields of a Kubernetes list answer (an empty `continue` is the last page). */
export function pageOf(list: ListMetadata): {
  continue?: string;
  remainingItemCount?: number;
  resourceVersion?: string;
} {
  const { continue: next, remainingItemCount, resourceVersion } = list.metadata ?? {};
  return {
    ...(next ? { continue: next } : {}),
    ...(typeof remainingItemCount === "number" ? { remainingItemCount } : {}),
    ...(resourceVersion ? { resourceVersion } : {}),
  };
}
