/**
 * The build half of the real-platform test: the image-build controller in this process as the
 * operator runs it (the Platform vouches for its namespace's override; the buildah Job backend on the
 * real node), with the platform's Service names resolved as the dev operator resolves them
 * (src/dev/service-lookup.ts); and reads of the platform's registry and object store through those
 * names with its generated credentials.
 */
import { Writable } from "node:stream";
import pino from "pino";
import { inject } from "vitest";
import { parseBuildsConfig } from "../../../src/builds/config.ts";
import { imageBuildController } from "../../../src/builds/controller.ts";
import { RegistryClient } from "../../../src/builds/registry/client.ts";
import { endpointHost } from "../../../src/builds/tenancy.ts";
import { secretValues } from "../../../src/dev/platform-store.ts";
import { realNodePlacement } from "../../../src/dev/real-node/objects.ts";
import { installServiceLookup } from "../../../src/dev/service-lookup.ts";
import { Manager } from "../../../src/kube/manager.ts";
import { platformBuildsConfig, platformBuildsVoucher } from "../../../src/platform/builds-wiring.ts";
import { credentialSecrets } from "../../../src/platform/credentials.ts";
import { registryTokenSettings } from "../../../src/platform/registry-token.ts";
import { adminConfig } from "../../support/cluster.ts";

/**
 * The operator's builds configuration has nothing of the platform: a registry elsewhere, no storage,
 * no tenancy grant. Only the Platform's override (which it vouches for) sends builds to the platform.
 */
export async function startPlatformBuilds(namespace: string) {
  const undoLookup = installServiceLookup(inject("kubeconfig"));
  const logs: string[] = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      logs.push(...chunk.toString().split("\n").filter(Boolean));
      done();
    },
  });
  const config = parseBuildsConfig({
    backend: "buildah",
    registry: { url: "registry.invalid" },
    kaniko: { ...realNodePlacement() },
  });
  const manager = new Manager({
    kubeConfig: adminConfig(),
    namespace,
    fieldManager: "slipway-operator",
    log: pino({ level: "debug" }, sink),
  });
  manager.add(imageBuildController({ config, overrideVoucher: platformBuildsVoucher }));
  await manager.start();
  return {
    logs,
    stop: async () => {
      await manager.stop();
      undoLookup();
    },
  };
}

/** A client of the platform's registry (by its Service name) with the generated credentials. */
export async function platformRegistry(
  namespace: string,
): Promise<{ client: RegistryClient; password: string }> {
  const values = await secretValues(adminConfig(), namespace, credentialSecrets("slipway").registry);
  const client = new RegistryClient({
    registry: platformBuildsConfig("slipway", namespace).registry.url,
    insecure: true,
    // the registry's Bearer realm: the api-server's token issuer
    allowedHosts: [endpointHost(registryTokenSettings("slipway", namespace).realm)],
    credentials: async () => ({ username: values.username ?? "", password: values.password ?? "" }),
  });
  return { client, password: values.password ?? "" };
}
