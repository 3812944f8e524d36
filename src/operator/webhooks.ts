/**
 * The operator's admission webhooks (ImageBuilds' Secret build arguments, Providers' Secret
 * parameters, the builds override ConfigMap's Secrets) on a WebhookRunner, and what serving them needs from the API server: the operator's
 * permissions, the names of its Secret.
 */

import type { Logger } from "pino";
import { overrideAdmission, overrideAdmissionPath } from "../builds/admission/override-review.ts";
import { imageBuildAdmission, imageBuildAdmissionPath } from "../builds/admission/review.ts";
import { secretType } from "../kube/core-types.ts";
import type { RestClient } from "../kube/rest.ts";
import type { Permission, ResourceType } from "../kube/types.ts";
import { providerAdmission, providerAdmissionPath } from "../pipelines/admission/review.ts";
import { WebhookRunner } from "../webhook/runner.ts";

/** The Secret (in the operator's namespace) holding the serving certificate every replica serves. */
export const webhookSecretName = "slipway-operator-webhook-tls";
/** The port the operator serves its webhooks on in a pod. */
export const webhookPort = 9443;

export interface OperatorWebhookOptions {
  port: number;
  host: string;
  /** The operator's namespace: where its serving certificate's Secret is. */
  namespace: string;
  /** The names the API server calls it by (its Service's DNS name, or 127.0.0.1). */
  hosts: string[];
  /** The ValidatingWebhookConfigurations whose caBundle it keeps. */
  configurations: string[];
  refreshMs?: number;
}

export function operatorWebhooks(
  rest: Pick<RestClient, "request">,
  options: OperatorWebhookOptions,
  log: Logger,
): WebhookRunner {
  return new WebhookRunner({
    rest,
    secret: { namespace: options.namespace, name: webhookSecretName, hosts: options.hosts },
    configurations: options.configurations,
    handlers: {
      [imageBuildAdmissionPath]: imageBuildAdmission(rest),
      [providerAdmissionPath]: providerAdmission(rest),
      [overrideAdmissionPath]: overrideAdmission(rest),
    },
    port: options.port,
    host: options.host,
    log,
    ...(options.refreshMs ? { refreshMs: options.refreshMs } : {}),
  });
}

const webhookConfigurationType: ResourceType = {
  group: "admissionregistration.k8s.io",
  version: "v1",
  kind: "ValidatingWebhookConfiguration",
  plural: "validatingwebhookconfigurations",
  namespaced: false,
};
const subjectAccessReviewType: ResourceType = {
  group: "authorization.k8s.io",
  version: "v1",
  kind: "SubjectAccessReview",
  plural: "subjectaccessreviews",
  namespaced: false,
};

/**
 * In the operator's own namespace: the serving certificate's Secret, read and rotated by name only;
 * created without a name (RBAC cannot limit a create by resourceNames: the request names no object yet).
 */
export const webhookSecretPermissions: Permission[] = [
  { type: secretType, verbs: ["get", "update"], resourceNames: [webhookSecretName] },
  { type: secretType, verbs: ["create"] },
];

/** Everything serving the webhooks needs: its Secret, the configurations' caBundle, the reviews as the requester. */
export const webhookPermissions: Permission[] = [
  ...webhookSecretPermissions,
  { type: webhookConfigurationType, verbs: ["get", "patch"] },
  { type: subjectAccessReviewType, verbs: ["create"] },
];
