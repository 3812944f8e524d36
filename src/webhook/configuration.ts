/**
 * A ValidatingWebhookConfiguration with one webhook of the operator's: `failurePolicy: Fail` (what
 * it guards is never admitted unchecked), CREATE and UPDATE of one namespaced resource, the
 * matchConditions that keep it off every other request. The operator keeps `caBundle`
 * (ca-bundle.ts).
 */

const namespaceLabel = "kubernetes.io/metadata.name";

export type WebhookClientConfig =
  | { service: { name: string; namespace?: string; port: number; path?: string } }
  | { url: string };

export interface WebhookConfigurationOptions {
  name: string;
  /** How the API server reaches the operator: its Service (the path is the webhook's), or a URL (a test's 127.0.0.1). */
  clientConfig: WebhookClientConfig;
  /** Only objects of these namespaces; undefined: every namespace. */
  namespaces?: string[];
  labels?: Record<string, string>;
}

export interface OperatorWebhook {
  name: string;
  path: string;
  resource: { group: string; version: string; plural: string };
  matchConditions: { name: string; expression: string }[];
}

/** CEL: a CREATE, or an UPDATE that changes `spec` (status writes and metadata changes do not). */
export const specWritten = {
  name: "spec-written",
  expression: "request.operation == 'CREATE' || object.spec != oldObject.spec",
};

export function validatingWebhookConfiguration(
  webhook: OperatorWebhook,
  options: WebhookConfigurationOptions,
) {
  const clientConfig =
    "service" in options.clientConfig
      ? { service: { path: webhook.path, ...options.clientConfig.service } }
      : options.clientConfig;
  return {
    apiVersion: "admissionregistration.k8s.io/v1",
    kind: "ValidatingWebhookConfiguration",
    metadata: { name: options.name, ...(options.labels ? { labels: options.labels } : {}) },
    webhooks: [
      {
        name: webhook.name,
        admissionReviewVersions: ["v1"],
        sideEffects: "None",
        failurePolicy: "Fail",
        timeoutSeconds: 10,
        clientConfig,
        rules: [
          {
            apiGroups: [webhook.resource.group],
            apiVersions: [webhook.resource.version],
            operations: ["CREATE", "UPDATE"],
            resources: [webhook.resource.plural],
            scope: "Namespaced",
          },
        ],
        matchConditions: webhook.matchConditions,
        ...(options.namespaces
          ? {
              namespaceSelector: {
                matchExpressions: [{ key: namespaceLabel, operator: "In", values: options.namespaces }],
              },
            }
          : {}),
      },
    ],
  };
}
