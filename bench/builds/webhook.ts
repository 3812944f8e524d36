/**
 * The ImageBuild admission webhook as the operator serves it (TLS on 127.0.0.1, its serving Secret,
 * the caBundle injected, `failurePolicy: Fail`, the bundle's matchConditions), registered for the
 * bench's namespaces, with every review the API server sends it counted: the figure that shows
 * whether the webhook is on a build's path.
 */
import pino from "pino";
import { imageBuildWebhookConfiguration } from "../../src/builds/admission/configuration.ts";
import { imageBuildAdmission, imageBuildAdmissionPath } from "../../src/builds/admission/review.ts";
import type { RestClient } from "../../src/kube/rest.ts";
import { webhookSecretName } from "../../src/operator/webhooks.ts";
import { WebhookRunner } from "../../src/webhook/runner.ts";

const configurationsPath = "/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations";

export interface CountedWebhook {
  /** Reviews the API server sent so far. */
  calls: () => number;
  stop: () => Promise<void>;
}

/** Serves the webhook for `namespaces`, its serving Secret in `home`. */
export async function countedWebhook(
  rest: RestClient,
  home: string,
  namespaces: string[],
): Promise<CountedWebhook> {
  const name = `slipway-imagebuilds-bench-${home}`;
  const review = imageBuildAdmission(rest);
  let calls = 0;
  const runner = new WebhookRunner({
    rest,
    secret: { namespace: home, name: webhookSecretName, hosts: ["127.0.0.1"] },
    configurations: [name],
    handlers: {
      [imageBuildAdmissionPath]: (request) => {
        calls++;
        return review(request);
      },
    },
    port: 0,
    host: "127.0.0.1",
    log: pino({ level: "silent" }),
  });
  await runner.start();
  const body = imageBuildWebhookConfiguration({
    name,
    clientConfig: { url: `https://127.0.0.1:${runner.port}${imageBuildAdmissionPath}` },
    namespaces: [home, ...namespaces],
  });
  await rest.request("POST", configurationsPath, { body });
  await runner.refresh(); // the caBundle
  return {
    calls: () => calls,
    stop: async () => {
      await rest.request("DELETE", `${configurationsPath}/${name}`).catch(() => {});
      await runner.stop();
    },
  };
}
