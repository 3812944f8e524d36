/** admission.k8s.io/v1 AdmissionReview: what the API server sends a webhook, and the answer it expects. */
import { reviewRequest } from "./review-body.ts";

export interface UserInfo {
  username?: string;
  uid?: string;
  groups?: string[];
  extra?: Record<string, string[]>;
}

export interface AdmissionRequest {
  uid: string;
  kind?: { group: string; version: string; kind: string };
  resource?: { group: string; version: string; resource: string };
  subResource?: string;
  namespace?: string;
  name?: string;
  operation: "CREATE" | "UPDATE" | "DELETE" | "CONNECT";
  userInfo: UserInfo;
  object?: unknown;
  oldObject?: unknown;
  dryRun?: boolean;
}

export interface AdmissionResponse {
  uid: string;
  allowed: boolean;
  status?: { code: number; reason?: string; message: string };
}

export interface AdmissionReview {
  apiVersion: "admission.k8s.io/v1";
  kind: "AdmissionReview";
  request?: AdmissionRequest;
  response?: AdmissionResponse;
}

/** Decides one admission request (a webhook path's job). */
export type AdmissionHandler = (request: AdmissionRequest) => Promise<AdmissionResponse>;

export const admit = (uid: string): AdmissionResponse => ({ uid, allowed: true });

const reasons: Record<number, string> = { 400: "BadRequest", 403: "Forbidden" };

/** A refusal the API server shows the requester as it is: the message names the field and the rule. */
export const refuse = (uid: string, message: string, code = 403): AdmissionResponse => ({
  uid,
  allowed: false,
  status: { code, reason: reasons[code] ?? "InternalError", message },
});

/** The review the API server sent, or why the body is not one. Pure. */
export const parseReview = (body: string): AdmissionRequest | { invalid: string } =>
  reviewRequest<AdmissionRequest>(body, "admission.k8s.io/v1", "AdmissionReview");

export function reviewResponse(response: AdmissionResponse): AdmissionReview {
  return { apiVersion: "admission.k8s.io/v1", kind: "AdmissionReview", response };
}
