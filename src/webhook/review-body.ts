/**
 * The request of a review the API server posts to a webhook (an AdmissionReview, a ConversionReview):
 * the body must be JSON of the expected apiVersion and kind, with a request carrying a uid. Pure.
 */

/** The review's request, or why the body is not a `kind` of `apiVersion` with one. */
export function reviewRequest<Request extends { uid: string }>(
  body: string,
  apiVersion: string,
  kind: string,
): Request | { invalid: string } {
  let parsed: { apiVersion?: unknown; kind?: unknown; request?: Request } | null;
  try {
    parsed = JSON.parse(body);
  } catch {
    return { invalid: "the body is not JSON" };
  }
  if (parsed?.apiVersion !== apiVersion || parsed.kind !== kind)
    return { invalid: `expected an ${apiVersion} ${kind}` };
  const request = parsed.request;
  if (!request || typeof request.uid !== "string") return { invalid: "the review has no request.uid" };
  return request;
}
