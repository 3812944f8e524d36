/** Sample ImageBuilds and operator configurations shared by the build tests. */
import { KubernetesObjectApi, type V1Job } from "@kubernetes/client-node";
import { expect } from "vitest";
import type { ImageBuild } from "../../../src/apis/builds/imagebuild.ts";
import { jobRenderers } from "../../../src/builds/backends.ts";
import { parseBlobUri } from "../../../src/builds/blob-uri.ts";
import { type BuildsConfig, parseBuildsConfig } from "../../../src/builds/config.ts";
import { parseImageReference } from "../../../src/builds/naming.ts";
import { adminConfig, testNamespace } from "../cluster.ts";

export const secretValue = "s3cr3t-token-value";

export function sampleBuild(overrides: Partial<ImageBuild["spec"]> = {}): ImageBuild {
  return {
    apiVersion: "builds.slipway.dev/v1beta1",
    kind: "ImageBuild",
    metadata: { name: "scorer", namespace: "ml", uid: "uid-1", generation: 1 },
    spec: {
      project: "fraud",
      name: "scorer",
      version: "v1",
      artifactUri: "s3://models/fraud/scorer/v1",
      buildArgs: [
        { name: "MODEL_FORMAT", value: "onnx" },
        { name: "PIP_TOKEN", valueFrom: { secretKeyRef: { name: "pip", key: "token" } } },
      ],
      labels: { team: "risk" },
      ...overrides,
    },
  };
}

export type Combination = {
  registry: "docker" | "google";
  storage: "s3" | "gcs";
  credentials: boolean;
};

export function sampleConfig(
  { registry, storage, credentials }: Combination,
  backend: "kaniko" | "buildah" = "kaniko",
): BuildsConfig {
  return parseBuildsConfig({
    backend,
    registry: {
      type: registry,
      url: registry === "docker" ? "registry.example.com/ml" : "europe-docker.pkg.dev/acme/models",
      ...(credentials ? { credentialsSecret: "registry-creds" } : {}),
    },
    storage: {
      type: storage,
      s3: {
        endpoint: "http://minio.storage:9000",
        region: "eu-west-1",
        forcePathStyle: true,
        ...(credentials ? { credentialsSecret: "s3-creds" } : {}),
      },
      gcs: credentials ? { credentialsSecret: "gcs-key" } : {},
    },
  });
}

export const combinations: Combination[] = (["docker", "google"] as const).flatMap((registry) =>
  (["s3", "gcs"] as const).flatMap((storage) =>
    [true, false].map((credentials) => ({ registry, storage, credentials })),
  ),
);

/** The Job of `backend` (default Kaniko's) for a sample build. */
export function renderSample(
  combination: Combination,
  build = sampleBuild(),
  backend: "kaniko" | "buildah" = "kaniko",
): V1Job {
  const config = sampleConfig(combination, backend);
  const artifact =
    combination.storage === "s3" ? "s3://models/fraud/scorer/v1" : "gs://models/fraud/scorer/v1";
  const image = parseImageReference(`${config.registry.url}/ml/fraud-scorer:v1`);
  return jobRenderers[backend]({
    build,
    image,
    artifact: parseBlobUri(artifact),
    config,
    namespace: "ml",
  });
}

/** The builds every dry run renders: the sample, and one with its own timeout, retries and resources. */
const dryRunBuilds = () => [
  sampleBuild(),
  sampleBuild({ timeout: "2h", backoffLimit: 0, resources: { limits: { memory: "16Gi", cpu: "4" } } }),
];

const containerArgs = (job: V1Job) => {
  const pod = job.spec?.template.spec;
  return [...(pod?.initContainers ?? []), ...(pod?.containers ?? [])].map((c) => [c.name, c.args]);
};

/**
 * Creates the Job of `backend` for every combination × dry-run build with server-side dry-run in a
 * fresh namespace: the real API server must accept each, keeping its name and every container's
 * arguments as rendered; `check` then looks at what it accepted.
 */
export async function dryRunSamples(
  backend: "kaniko" | "buildah",
  combinations: Combination[],
  check: (accepted: V1Job) => void = () => {},
): Promise<void> {
  const namespace = await testNamespace(`ib-dry-${backend}`);
  const api = KubernetesObjectApi.makeApiClient(adminConfig());
  for (const combination of combinations) {
    for (const build of dryRunBuilds()) {
      const job = renderSample(combination, build, backend);
      job.metadata = { ...job.metadata, namespace };
      const accepted = (await api.create(job, undefined, "All")) as V1Job;
      expect(accepted.metadata?.name).toBe(job.metadata.name);
      expect(containerArgs(accepted)).toEqual(containerArgs(job));
      check(accepted);
    }
  }
}
