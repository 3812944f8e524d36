/** Sample ImageBuilds and operator configurations shared by the build tests. */
import type { V1Job } from "@kubernetes/client-node";
import type { ImageBuild } from "../../../src/apis/builds/imagebuild.ts";
import { jobRenderers } from "../../../src/builds/backends.ts";
import { parseBlobUri } from "../../../src/builds/blob-uri.ts";
import { type BuildsConfig, parseBuildsConfig } from "../../../src/builds/config.ts";
import { parseImageReference } from "../../../src/builds/naming.ts";

export const secretValue = "s3cr3t-token-value";

export function sampleBuild(overrides: Partial<ImageBuild["spec"]> = {}): ImageBuild {
  return {
    apiVersion: "builds.slipway.dev/v1alpha1",
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
