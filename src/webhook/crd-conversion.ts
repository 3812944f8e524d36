/**
 * `spec.conversion` of Slipway's CRDs, set by the operator that serves the conversion: strategy
 * Webhook, its own Service (or a test's URL) and the CAs of its serving certificate — a server-side
 * apply of that one field under the field manager that keeps the admission webhooks' caBundle
 * (ca-bundle.ts), so the installer (the bundle, Helm's crds/) owns everything else and never removes it.
 */
import { crdType } from "../kube/core-types.ts";
import { resourcePath } from "../kube/keys.ts";
import type { RestClient } from "../kube/rest.ts";
import { canonical } from "../lib/canonical.ts";
import { applyServingFields } from "./ca-bundle.ts";

export type ConversionClientConfig =
  | { service: { namespace: string; name: string; port: number; path: string } }
  | { url: string };

interface CrdConversion {
  strategy: string;
  webhook?: { conversionReviewVersions?: string[]; clientConfig?: Record<string, unknown> };
}

/** The CRD's `spec.conversion` that sends its conversions to `clientConfig` trusting `caBundle` (PEM). Pure. */
export function webhookConversion(clientConfig: ConversionClientConfig, caBundle: string): CrdConversion {
  return {
    strategy: "Webhook",
    webhook: {
      conversionReviewVersions: ["v1"],
      clientConfig: { ...clientConfig, caBundle: Buffer.from(caBundle).toString("base64") },
    },
  };
}

/** True when the CRD already converts as `desired` (the API server's defaults, e.g. a Service's port, aside). */
export function convertsAs(current: CrdConversion | undefined, desired: CrdConversion): boolean {
  const config = current?.webhook?.clientConfig ?? {};
  const wanted = desired.webhook?.clientConfig ?? {};
  return (
    current?.strategy === desired.strategy &&
    (current.webhook?.conversionReviewVersions ?? []).join() ===
      (desired.webhook?.conversionReviewVersions ?? []).join() &&
    JSON.stringify(canonical(config)) === JSON.stringify(canonical(wanted))
  );
}

/** Sets CRD `name`'s conversion to the operator's webhook; true when something changed. */
export async function injectConversion(
  rest: Pick<RestClient, "request">,
  name: string,
  clientConfig: ConversionClientConfig,
  caBundle: string,
): Promise<boolean> {
  const path = resourcePath(crdType, { name });
  const current = await rest.request<{ spec?: { conversion?: CrdConversion } }>("GET", path);
  const desired = webhookConversion(clientConfig, caBundle);
  if (convertsAs(current.spec?.conversion, desired)) return false;
  await applyServingFields(rest, path, {
    apiVersion: "apiextensions.k8s.io/v1",
    kind: "CustomResourceDefinition",
    metadata: { name },
    spec: { conversion: desired },
  });
  return true;
}
