/**
 * The operator's admission webhooks (ImageBuilds' Secret build arguments, Providers' Secret
 * parameters, the builds override ConfigMap's Secrets) on a WebhookRunner, and what serving them needs from the API server: the operator's
 * permissions, the names of its Secret.
 */

import type { Logger } from "pino";
import { allKinds } from "../apis/index.ts";
import { crdName } from "../apis/kind.ts";
import { conversionPath } from "../apis/versions.ts";
import { overrideAdmission, overrideAdmissionPath } from "../builds/admission/override-review.ts";
import { imageBuildAdmission, imageBuildAdmissionPath } from "../builds/admission/review.ts";
import { secretType } from "../kube/core-types.ts";
import type { RestClient } from "../kube/rest.ts";
import type { Permission, ResourceType } from "../kube/types.ts";
import { providerAdmission, providerAdmissionPath } from "../pipelines/admission/review.ts";
import type { ConversionClientConfig } from "../webhook/crd-conversion.ts";
import { WebhookRunner } from "../webhook/runner.ts";
import { migratedKinds } from "./storage-migration.ts";

/** The Secret (in the operator's namespace) holding the serving certificate every replica serves. */
export const webhookSecretName = "slipway-operator-webhook-tls";
/** The port the operator serves its webhooks on in a pod. */
export const webhookPort = 9443;
/**
 * The bundle's ValidatingWebhookConfigurations (src/bundle/webhook.ts), before placing: each install
 * names them after its namespace (`slipway-imagebuilds-<namespace>`), and so does the operator's RBAC
 * on them (the bundle's inNamespace renames both).
 */
export const webhookConfigurationName = "slipway-imagebuilds";
export const providerWebhookConfigurationName = "slipway-providers";
export const overrideWebhookConfigurationName = "slipway-builds-overrides";
export const webhookConfigurationNames = [
  webhookConfigurationName,
  providerWebhookConfigurationName,
  overrideWebhookConfigurationName,
];

export interface OperatorWebhookOptions {
  port: number;
  host: string;
  /** The operator's namespace: where its serving certificate's Secret is. */
  namespace: string;
  /** The names the API server calls it by (its Service's DNS name, or 127.0.0.1). */
  hosts: string[];
  /** The ValidatingWebhookConfigurations whose caBundle it keeps. */
  configurations: string[];
  /**
   * Serve the conversion of every Slipway kind's versions, the CRDs pointed at it: through the
   * operator's Service (in its namespace, port 443) or a URL (a test's 127.0.0.1).
   */
  conversion?: { service: string } | { url: string };
  refreshMs?: number;
}

/** The CRDs of Slipway's kinds served at an older version: their conversion is the operator's. */
export const slipwayCrdNames = migratedKinds(allKinds).map(crdName);

function conversionClientConfig(
  conversion: NonNullable<OperatorWebhookOptions["conversion"]>,
  namespace: string,
): ConversionClientConfig {
  if ("url" in conversion) return { url: conversion.url };
  return { service: { namespace, name: conversion.service, port: 443, path: conversionPath } };
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
    ...(options.conversion
      ? {
          conversion: {
            crds: slipwayCrdNames,
            clientConfig: conversionClientConfig(options.conversion, options.namespace),
          },
        }
      : {}),
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

export const webhookConfigurationType: ResourceType = {
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

/**
 * Everything serving the webhooks needs: its Secret, the caBundle of the bundle's own configurations
 * (read and patched by name: the operator lists, watches and creates none, the verbs RBAC cannot
 * limit by name), the reviews as the requester. No right on MutatingWebhookConfigurations at all.
 */
export const webhookPermissions: Permission[] = [
  ...webhookSecretPermissions,
  { type: webhookConfigurationType, verbs: ["get", "patch"], resourceNames: webhookConfigurationNames },
  { type: subjectAccessReviewType, verbs: ["create"] },
];
