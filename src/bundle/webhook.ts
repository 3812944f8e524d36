/**
 * The bundle's part of the operator's admission webhooks (src/builds/admission,
 * src/pipelines/admission): a Service to the operator's webhook port, a ValidatingWebhookConfiguration
 * per webhook naming it (only for the namespaces the operator serves), and the operator's flags that
 * serve them. Like the bundle's other cluster-wide objects the configurations are named after the
 * namespace they are placed in (inNamespace).
 */
import { imageBuildWebhookConfiguration } from "../builds/admission/configuration.ts";
import { overrideWebhookConfiguration } from "../builds/admission/override-configuration.ts";
import {
  overrideWebhookConfigurationName,
  providerWebhookConfigurationName,
  webhookConfigurationName,
  webhookConfigurationNames,
  webhookPort,
} from "../operator/webhooks.ts";
import { providerWebhookConfiguration } from "../pipelines/admission/configuration.ts";
import type { WebhookConfigurationOptions } from "../webhook/configuration.ts";
import type { BundleObject } from "./bundle.ts";

export const webhookServiceName = "slipway-operator-webhook";

/** The operator's webhook flags; the pod's namespace completes the names (the kubelet expands $(POD_NAMESPACE)). */
export const webhookArgs = [
  `--webhook-port=${webhookPort}`,
  `--webhook-hosts=${webhookServiceName}.$(POD_NAMESPACE).svc`,
  `--webhook-configuration=${webhookConfigurationNames.map((name) => `${name}-$(POD_NAMESPACE)`).join(",")}`,
  `--webhook-conversion-service=${webhookServiceName}`,
];

export function webhookService(
  labels: Record<string, string>,
  selector: Record<string, string>,
): BundleObject {
  return {
    apiVersion: "v1",
    kind: "Service",
    metadata: { name: webhookServiceName, labels },
    spec: { selector, ports: [{ name: "https-webhook", port: 443, targetPort: "webhook", protocol: "TCP" }] },
  };
}

/**
 * `serves`: its own namespace (undefined: filled in where the bundle is placed), a list, or all.
 * Namespace-free: inNamespace points the Service reference and the own-namespace selector there.
 */
export function webhookConfigurations(
  labels: Record<string, string>,
  serves: string[] | "all" | undefined,
): BundleObject[] {
  const options = (name: string): WebhookConfigurationOptions => ({
    name,
    labels,
    clientConfig: { service: { name: webhookServiceName, port: 443 } },
    ...(serves === "all" ? {} : { namespaces: serves ?? [""] }),
  });
  const override = overrideWebhookConfiguration(options(overrideWebhookConfigurationName));
  return [
    imageBuildWebhookConfiguration(options(webhookConfigurationName)),
    providerWebhookConfiguration(options(providerWebhookConfigurationName)),
    {
      ...override,
      webhooks: override.webhooks?.map((webhook) => ({
        ...webhook,
        matchConditions: [...(webhook.matchConditions ?? []), notTheOperator("", "")],
      })),
    },
  ] as BundleObject[];
}

interface MatchCondition {
  name: string;
  expression: string;
}

const notTheOperatorName = "not-the-operator";

/**
 * The builds override's webhook skips the operator's own writes: the platform controller writes its
 * namespace's override naming the Secrets it generated itself, and must not wait on (or, while its
 * pod is not yet serving, be refused by) a review of rights it holds. By exact user name: the
 * ServiceAccount of the namespace the bundle is placed in (inNamespace fills both in).
 */
function notTheOperator(namespace: string, serviceAccount: string): MatchCondition {
  return {
    name: notTheOperatorName,
    expression: `request.userInfo.username != 'system:serviceaccount:${namespace}:${serviceAccount}'`,
  };
}

interface NamespaceSelector {
  matchExpressions?: { values?: string[] }[];
}

interface PlacedWebhook {
  clientConfig?: { service?: { namespace?: string } };
  namespaceSelector?: NamespaceSelector;
  matchConditions?: MatchCondition[];
}

/** A namespace selector with the value `own` (the namespace a bundle was placed in, or none) replaced by `namespace`. */
export function placedSelector(
  selector: NamespaceSelector,
  own: string,
  namespace: string,
): NamespaceSelector {
  return {
    ...selector,
    matchExpressions: selector.matchExpressions?.map((expression) => ({
      ...expression,
      values: expression.values?.map((value) => (value === own ? namespace : value)),
    })),
  };
}

/** A webhook configuration placed in `namespace`: its Service there, and the own-namespace selector with it. */
export function placeWebhookConfiguration(
  object: BundleObject,
  namespace: string,
  serviceAccount: string,
): BundleObject {
  const webhooks = (object.webhooks as PlacedWebhook[] | undefined) ?? [];
  return {
    ...object,
    webhooks: webhooks.map((webhook) => {
      const service = webhook.clientConfig?.service;
      if (!service) return webhook;
      const own = service.namespace ?? "";
      const selector = webhook.namespaceSelector;
      const conditions = webhook.matchConditions?.map((condition) =>
        condition.name === notTheOperatorName ? notTheOperator(namespace, serviceAccount) : condition,
      );
      return {
        ...webhook,
        ...(conditions ? { matchConditions: conditions } : {}),
        clientConfig: { ...webhook.clientConfig, service: { ...service, namespace } },
        ...(selector ? { namespaceSelector: placedSelector(selector, own, namespace) } : {}),
      };
    }),
  };
}

interface CrdSpec {
  conversion?: { webhook?: { clientConfig?: { service?: Record<string, unknown>; url?: string } } };
}

/** A CRD of the bundle placed in `namespace`: its conversion webhook is the operator's Service there. */
export function placeCrdConversion(object: BundleObject, namespace: string): BundleObject {
  const spec = object.spec as CrdSpec | undefined;
  const service = spec?.conversion?.webhook?.clientConfig?.service;
  if (!spec?.conversion?.webhook || !service) return object;
  return {
    ...object,
    spec: {
      ...spec,
      conversion: {
        ...spec.conversion,
        webhook: { ...spec.conversion.webhook, clientConfig: { service: { ...service, namespace } } },
      },
    },
  };
}

/**
 * A CRD for an operator that runs outside the cluster and sets its own conversion (`install --dev`):
 * none named, so the installer's apply neither points it at a Service nor removes what the operator set.
 */
export function crdWithoutConversion(object: BundleObject): BundleObject {
  const spec = object.spec as (CrdSpec & Record<string, unknown>) | undefined;
  if (!spec?.conversion) return object;
  const { conversion: _conversion, ...rest } = spec;
  return { ...object, spec: rest };
}

/** A placed CRD whose conversion webhook is `url` instead of the Service (an operator outside the cluster). */
export function crdConversionAt(object: BundleObject, url: string): BundleObject {
  const spec = object.spec as CrdSpec | undefined;
  if (!spec?.conversion?.webhook?.clientConfig) return object;
  return {
    ...object,
    spec: {
      ...spec,
      conversion: { ...spec.conversion, webhook: { ...spec.conversion.webhook, clientConfig: { url } } },
    },
  };
}
