/**
 * The ValidatingWebhookConfiguration of the ImageBuild admission webhook. `failurePolicy: Fail`: a
 * build that takes a Secret is never admitted unchecked. Its matchConditions (CEL, evaluated by the
 * API server) call the webhook only when a CREATE or a change of `spec` has a build argument from a
 * Secret: builds without secret arguments, status writes and metadata-only changes (the operator's
 * finalizer) never wait for it. The operator keeps `caBundle` (src/webhook/ca-bundle.ts).
 */
import { ImageBuildKind } from "../../apis/builds/imagebuild.ts";
import { imageBuildAdmissionPath } from "./review.ts";

export const imageBuildWebhookName = "secret-build-args.builds.slipway.dev";
const namespaceLabel = "kubernetes.io/metadata.name";

export type WebhookClientConfig =
  | { service: { name: string; namespace?: string; port: number; path?: string } }
  | { url: string };

export interface WebhookConfigurationOptions {
  name: string;
  /** How the API server reaches the operator: its Service, or a URL (a test's 127.0.0.1). */
  clientConfig: WebhookClientConfig;
  /** Only ImageBuilds of these namespaces; undefined: every namespace. */
  namespaces?: string[];
  labels?: Record<string, string>;
}

export const matchConditions = [
  { name: "spec-written", expression: "request.operation == 'CREATE' || object.spec != oldObject.spec" },
  {
    name: "secret-build-args",
    expression: "has(object.spec.buildArgs) && object.spec.buildArgs.exists(a, has(a.valueFrom))",
  },
];

export function imageBuildWebhookConfiguration(options: WebhookConfigurationOptions) {
  const clientConfig =
    "service" in options.clientConfig
      ? { service: { path: imageBuildAdmissionPath, ...options.clientConfig.service } }
      : options.clientConfig;
  return {
    apiVersion: "admissionregistration.k8s.io/v1",
    kind: "ValidatingWebhookConfiguration",
    metadata: { name: options.name, ...(options.labels ? { labels: options.labels } : {}) },
    webhooks: [
      {
        name: imageBuildWebhookName,
        admissionReviewVersions: ["v1"],
        sideEffects: "None",
        failurePolicy: "Fail",
        timeoutSeconds: 10,
        clientConfig,
        rules: [
          {
            apiGroups: [ImageBuildKind.group],
            apiVersions: [ImageBuildKind.version],
            operations: ["CREATE", "UPDATE"],
            resources: [ImageBuildKind.plural],
            scope: "Namespaced",
          },
        ],
        matchConditions,
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
