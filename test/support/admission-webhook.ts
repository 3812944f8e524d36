/**
 * The operator's admission webhooks for real in a test: served on 127.0.0.1 as the operator's
 * ServiceAccount with only the bundle's generated RBAC (for `controllers`), the configurations
 * pointing at them by URL and limited to the test's namespace (other tests never meet them).
 */
import { AdmissionregistrationV1Api, type V1ValidatingWebhookConfiguration } from "@kubernetes/client-node";
import pino from "pino";
import { onTestFinished } from "vitest";
import { bundleFor, operatorName } from "../../src/bundle/bundle.ts";
import { RestClient } from "../../src/kube/rest.ts";
import type { ControllerSpec } from "../../src/kube/types.ts";
import { operatorWebhooks } from "../../src/operator/webhooks.ts";
import type { WebhookConfigurationOptions } from "../../src/webhook/configuration.ts";
import { adminConfig } from "./cluster.ts";
import { applyRbac, bundleOptions } from "./operator-rbac.ts";
import { serviceAccountConfig } from "./service-account.ts";

export interface TestWebhook {
  /** The configuration's name (made unique with the namespace). */
  name: string;
  path: string;
  configuration: (options: WebhookConfigurationOptions) => object;
}

export async function startOperatorWebhooks(
  namespace: string,
  controllers: ControllerSpec[],
  webhooks: TestWebhook[],
) {
  await applyRbac(bundleFor(namespace, bundleOptions(controllers)));
  const rest = new RestClient(await serviceAccountConfig(adminConfig(), namespace, operatorName));
  const names = webhooks.map((webhook) => `${webhook.name}-${namespace}`);
  const runner = operatorWebhooks(
    rest,
    { port: 0, host: "127.0.0.1", namespace, hosts: ["127.0.0.1"], configurations: names },
    pino({ level: "silent" }),
  );
  await runner.start();
  onTestFinished(async () => {
    await runner.stop();
    rest.close();
  });
  const admission = adminConfig().makeApiClient(AdmissionregistrationV1Api);
  for (const [index, webhook] of webhooks.entries()) {
    const name = names[index] ?? "";
    const body = webhook.configuration({
      name,
      clientConfig: { url: `https://127.0.0.1:${runner.port}${webhook.path}` },
      namespaces: [namespace],
    }) as V1ValidatingWebhookConfiguration;
    await admission.createValidatingWebhookConfiguration({ body });
    onTestFinished(() => admission.deleteValidatingWebhookConfiguration({ name }).then(() => {}));
  }
  await runner.refresh();
  const read = (index = 0) => admission.readValidatingWebhookConfiguration({ name: names[index] ?? "" });
  return { runner, read };
}
