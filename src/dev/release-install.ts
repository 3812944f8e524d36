/**
 * The dev plane as a release install (issue #28): what `kubectl apply -f deploy/slipway.yaml` creates
 * — the CRDs, the operator's ServiceAccount with the generated RBAC (serving every namespace, as the
 * chart's `allNamespaces`), the installer's grants, the admission webhook configurations and the Run
 * finalizer policy — except the operator's Deployment and its Services: dev runs the operator as a
 * local process, authenticated as that ServiceAccount, so it has exactly a release's rights, and the
 * API server (a local process too) calls its webhooks by URL on 127.0.0.1.
 */
import { join } from "node:path";
import { KubeConfig } from "@kubernetes/client-node";
import { conversionPath } from "../apis/versions.ts";
import { type BundleObject, operatorName } from "../bundle/bundle.ts";
import { releaseBundle } from "../bundle/release.ts";
import { crdConversionAt } from "../bundle/webhook.ts";
import { withDevClient } from "./dev-client.ts";
import { writeServiceAccountKubeconfig } from "./kubeconfig.ts";

/** Where the webhooks listen: the API server runs on this machine and calls them here. */
export const devWebhookHost = "127.0.0.1";

/** Where the local operator converts the CRDs' versions (its --webhook-conversion-url). */
export const devConversionUrl = (port: number) => `https://${devWebhookHost}:${port}${conversionPath}`;

/** Kinds of the bundle that run the operator in a pod: a dev plane runs it as a process instead. */
const podOnlyKinds = new Set(["Deployment", "Service"]);

interface ServiceClientConfig {
  clientConfig?: { service?: { path?: string }; url?: string; caBundle?: string };
}

/** A webhook configuration whose Service references are URLs of the local operator's webhook port. */
function localWebhooks(object: BundleObject, port: number): BundleObject {
  const webhooks = (object.webhooks as ServiceClientConfig[] | undefined) ?? [];
  return {
    ...object,
    webhooks: webhooks.map((webhook) => {
      const path = webhook.clientConfig?.service?.path ?? "/";
      return { ...webhook, clientConfig: { url: `https://${devWebhookHost}:${port}${path}` } };
    }),
  };
}

/** The release bundle placed in `namespace`, serving every namespace, for an operator run as a process (pure). */
export function devReleaseObjects(namespace: string, webhookPort: number): BundleObject[] {
  return releaseBundle(namespace, { serves: "all" })
    .filter((object) => !podOnlyKinds.has(object.kind ?? ""))
    .map((object) => {
      if (object.kind === "ValidatingWebhookConfiguration") return localWebhooks(object, webhookPort);
      if (object.kind === "CustomResourceDefinition")
        return crdConversionAt(object, devConversionUrl(webhookPort));
      return object;
    });
}

/** The ValidatingWebhookConfigurations whose caBundle the operator keeps (its --webhook-configuration). */
export const webhookConfigurationNames = (objects: BundleObject[]): string[] =>
  objects
    .filter((object) => object.kind === "ValidatingWebhookConfiguration")
    .map((object) => object.metadata?.name ?? "");

export const operatorKubeconfigFile = (dir: string) => join(dir, "operator.kubeconfig");

/** Seven days: a dev plane lives longer than an hour; `dev up` mints a fresh one each time it starts the operator. */
const operatorTokenSeconds = 7 * 24 * 3600;

/**
 * Applies the release's objects (server-side apply as `slipway-dev`, forced: the release is the
 * truth) and writes a kubeconfig (mode 0600) that authenticates as the operator's ServiceAccount.
 * Returns that kubeconfig's path.
 */
export async function applyDevRelease(
  dir: string,
  adminKubeconfig: string,
  objects: BundleObject[],
  namespace: string,
): Promise<string> {
  const admin = new KubeConfig();
  admin.loadFromFile(adminKubeconfig);
  await withDevClient(admin, async ({ kube }) => {
    for (const object of objects) await kube.apply(object, { force: true });
  });
  const path = operatorKubeconfigFile(dir);
  await writeServiceAccountKubeconfig(admin, { namespace, name: operatorName }, operatorTokenSeconds, path);
  return path;
}
