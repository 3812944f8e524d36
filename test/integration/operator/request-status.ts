/** The HTTP status of the operator's requests, for the RBAC tests that expect a 403 by name. */
import { ApiError } from "../../../src/kube/rest.ts";

/** The HTTP status of `request` (200 when it succeeds); an error other than the API server's is thrown. */
export async function statusOf(request: Promise<unknown>): Promise<number> {
  try {
    await request;
    return 200;
  } catch (error) {
    if (error instanceof ApiError) return error.status;
    throw error;
  }
}
