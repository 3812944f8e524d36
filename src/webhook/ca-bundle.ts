/**
 * `caBundle` of a ValidatingWebhookConfiguration's webhooks, set by the operator to the CAs of its
 * serving certificate: a server-side apply of that one field under a field manager of its own, so
 * the installer (the bundle, Helm) owns everything else and never removes it.
 */
import type { RestClient } from "../kube/rest.ts";

const collection = "/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations";
const caBundleFieldManager = "slipway-webhook-ca";

/**
 * Server-side applies `object` (the fields the operator keeps: apiVersion, kind, metadata.name and
 * those) at `path` under caBundleFieldManager, taking them over from any other manager.
 */
export async function applyServingFields(
  rest: Pick<RestClient, "request">,
  path: string,
  object: { apiVersion: string; kind: string; metadata: { name: string }; [field: string]: unknown },
): Promise<void> {
  await rest.request("PATCH", path, {
    query: { fieldManager: caBundleFieldManager, force: true },
    contentType: "application/apply-patch+yaml",
    body: object,
  });
}

interface WebhookConfiguration {
  webhooks?: { name: string; clientConfig?: { caBundle?: string } }[];
}

/** Sets every webhook's caBundle of configuration `name` to `caBundle` (PEM); true when something changed. */
export async function injectCaBundle(
  rest: Pick<RestClient, "request">,
  name: string,
  caBundle: string,
): Promise<boolean> {
  const path = `${collection}/${name}`;
  const current = await rest.request<WebhookConfiguration>("GET", path);
  const encoded = Buffer.from(caBundle).toString("base64");
  const webhooks = current.webhooks ?? [];
  if (webhooks.every((webhook) => webhook.clientConfig?.caBundle === encoded)) return false;
  await applyServingFields(rest, path, {
    apiVersion: "admissionregistration.k8s.io/v1",
    kind: "ValidatingWebhookConfiguration",
    metadata: { name },
    webhooks: webhooks.map((webhook) => ({ name: webhook.name, clientConfig: { caBundle: encoded } })),
  });
  return true;
}
