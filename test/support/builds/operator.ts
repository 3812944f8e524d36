/**
 * The image-build controller on the real control plane for one test: a controller-runtime Manager
 * watching the test's namespace, with its log lines captured (to check that no secret leaks).
 */
import { Writable } from "node:stream";
import { CoreV1Api, CustomObjectsApi } from "@kubernetes/client-node";
import pino from "pino";
import { onTestFinished } from "vitest";
import { type ImageBuild, ImageBuildKind } from "../../../src/apis/builds/imagebuild.ts";
import { type BuildsConfig, parseBuildsConfig } from "../../../src/builds/config.ts";
import { imageBuildController } from "../../../src/builds/controller.ts";
import type { LocalBuilder } from "../../../src/builds/local-builder.ts";
import { Manager } from "../../../src/kube/manager.ts";
import { adminConfig, eventually } from "../cluster.ts";

export interface BuildOperator {
  manager: Manager;
  logs: string[];
  metrics: ReturnType<typeof imageBuildController>["buildMetrics"];
}

/**
 * `namespaces`: the operator serves these (instead of `namespace` alone), as one serving a list.
 * `allNamespaces`: the cache watches every namespace (as an operator must to see Jobs in a
 * buildNamespace) while only `namespace`'s ImageBuilds are reconciled, leaving other tests' alone.
 */
export async function startBuildOperator(
  namespace: string,
  config: unknown,
  localBuilder?: LocalBuilder,
  options: { allNamespaces?: boolean; devMode?: boolean; namespaces?: string[] } = {},
): Promise<BuildOperator> {
  const logs: string[] = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      logs.push(...chunk.toString().split("\n").filter(Boolean));
      done();
    },
  });
  // An operator whose cache holds every namespace counts the running build Jobs of every file that
  // shares the plane as slot holders: ten of theirs queued this file's builds (Pending, "10 builds
  // running"). Unless a test sets the limit, it is far above what the tests run at once.
  const slotsOfItsOwn = options.allNamespaces
    ? { maxConcurrentBuilds: 1_000, ...(config as object) }
    : config;
  const parsed = parseBuildsConfig(slotsOfItsOwn) as BuildsConfig;
  const spec = imageBuildController({
    config: parsed,
    ...(localBuilder ? { localBuilder } : {}),
    // the local backend's tests are slipway dev's situation, unless a test says otherwise
    devMode: options.devMode ?? parsed.backend === "local",
  });
  if (options.allNamespaces) {
    const reconcile = spec.reconcile;
    spec.reconcile = (key, context) =>
      key.namespace === namespace ? reconcile(key, context) : Promise.resolve(undefined);
  }
  const manager = new Manager({
    kubeConfig: adminConfig(),
    ...(options.allNamespaces ? {} : options.namespaces ? { namespaces: options.namespaces } : { namespace }),
    fieldManager: "slipway-builds-test",
    log: pino({ level: "debug" }, sink),
  });
  manager.add(spec);
  onTestFinished(() => manager.stop());
  await manager.start();
  return { manager, logs, metrics: spec.buildMetrics };
}

const objects = () => adminConfig().makeApiClient(CustomObjectsApi);
const crd = { group: ImageBuildKind.group, version: ImageBuildKind.version, plural: ImageBuildKind.plural };

export async function createImageBuild(
  namespace: string,
  name: string,
  spec: ImageBuild["spec"],
): Promise<void> {
  await objects().createNamespacedCustomObject({
    ...crd,
    namespace,
    body: { apiVersion: ImageBuildKind.apiVersion, kind: ImageBuildKind.kind, metadata: { name }, spec },
  });
}

export async function readImageBuild(namespace: string, name: string): Promise<ImageBuild> {
  return (await objects().getNamespacedCustomObject({ ...crd, namespace, name })) as ImageBuild;
}

export async function deleteImageBuild(namespace: string, name: string): Promise<void> {
  await objects().deleteNamespacedCustomObject({ ...crd, namespace, name });
}

/** Waits until the build reaches `phase` (or any terminal phase, then fails if it is not `phase`). */
export async function waitForPhase(
  namespace: string,
  name: string,
  phase: string,
  timeoutMs = 60_000,
): Promise<ImageBuild> {
  const build = await eventually(
    `ImageBuild ${name} ${phase}`,
    () => readImageBuild(namespace, name),
    (b) => b.status?.phase === phase || b.status?.phase === "Succeeded" || b.status?.phase === "Failed",
    timeoutMs,
  );
  if (build.status?.phase !== phase)
    throw new Error(`ImageBuild ${name} is ${build.status?.phase}, not ${phase}: ${build.status?.message}`);
  return build;
}

export async function registrySecret(
  namespace: string,
  name: string,
  registry: string,
  username: string,
  password: string,
) {
  const auth = Buffer.from(`${username}:${password}`).toString("base64");
  await adminConfig()
    .makeApiClient(CoreV1Api)
    .createNamespacedSecret({
      namespace,
      body: {
        metadata: { name },
        type: "kubernetes.io/dockerconfigjson",
        stringData: { ".dockerconfigjson": JSON.stringify({ auths: { [registry]: { auth } } }) },
      },
    });
}

export async function opaqueSecret(namespace: string, name: string, data: Record<string, string>) {
  await adminConfig()
    .makeApiClient(CoreV1Api)
    .createNamespacedSecret({ namespace, body: { metadata: { name }, stringData: data } });
}
