/**
 * The release catalog (which image each component runs in each Slipway release), and the component
 * catalog's entry points (what each service is and how it starts: contracts.ts).
 */
import type { ComponentName } from "../apis/platform/schemas.ts";

import { type CatalogComponent, catalog } from "./contracts.ts";
import type { WorkflowImages } from "./workflow-images.ts";

export { type CatalogComponent, catalog, type SizeField } from "./contracts.ts";
export { serviceName } from "./names.ts";

/**
 * Something an update to a release needs its owner to agree to first (a data migration, a breaking
 * change): the update waits until the gate is in the Platform's spec.acknowledgedGates.
 */
export interface ReleaseGate {
  /** A DNS-1123 label (gateNameProblem), e.g. `db-migration`. */
  name: string;
  /** What the owner agrees to, shown where the update waits. */
  description: string;
}

export interface Release {
  version: string;
  images: Record<ComponentName, string>;
  /** What an update to this release waits for (never an install: nothing ran before it). */
  gates?: readonly ReleaseGate[];
  /**
   * The workflow engine's executor and step images of a release outside this build's catalog (a
   * test's); this catalog's own are in workflow-images.ts.
   */
  workflowImages?: WorkflowImages;
}

/** Every release this build knows, oldest first. Images are pinned to exact tags. */
export const releases: readonly Release[] = [
  {
    version: "0.0.9",
    images: {
      postgres: "docker.io/library/postgres:16.4",
      "object-store": "quay.io/minio/minio:RELEASE.2024-08-17T01-24-54Z",
      registry: "docker.io/library/registry:2.8.2",
      mlflow: "ghcr.io/mlflow/mlflow:v2.15.1",
      "workflow-engine": "quay.io/argoproj/workflow-controller:v3.5.10",
      "api-server": "ghcr.io/slipway-dev/slipway:0.0.9",
      web: "ghcr.io/slipway-dev/slipway:0.0.9",
    },
  },
  {
    version: "0.1.0",
    images: {
      postgres: "docker.io/library/postgres:16.6",
      "object-store": "quay.io/minio/minio:RELEASE.2024-11-07T00-52-20Z",
      registry: "docker.io/library/registry:2.8.3",
      mlflow: "ghcr.io/mlflow/mlflow:v2.18.0",
      "workflow-engine": "quay.io/argoproj/workflow-controller:v3.6.2",
      "api-server": "ghcr.io/slipway-dev/slipway:0.1.0",
      web: "ghcr.io/slipway-dev/slipway:0.1.0",
    },
  },
  {
    // The first release whose every image exists on the real node (tools/images/, docs/real-node.md);
    // a Debian source is pinned at the tag's upstream version (`image` lines of
    // tools/setup/debian-packages.txt, exact versions in tools/images/debian.lock); each tag is its
    // source's version (test/unit/setup/image-pins.test.ts):
    //   docker.io/library/postgres:15.20                        Debian bookworm postgresql-15 15.20
    //   quay.io/minio/minio:RELEASE.2026-02-12T20-18-48Z        Go module github.com/minio/minio@v0.0.0-20260212201848-7aac2a2c5b7c
    //   docker.io/library/registry:2.8.2                        Debian docker-registry 2.8.2
    //   ghcr.io/slipway-dev/mlflow:3.17.2                       mlflow 3.17.2 + psycopg2-binary 2.9.13 + boto3 1.44.8 (PyPI)
    //   quay.io/argoproj/workflow-controller:v4.0.5             Go module github.com/argoproj/argo-workflows/v4@v4.0.5
    //   ghcr.io/slipway-dev/slipway:0.2.0                       this repository's Dockerfile
    // and, started by the workflow engine (src/platform/workflow-images.ts):
    //   quay.io/argoproj/argoexec:v4.0.5                        the executor, same Go module
    //   docker.io/library/python:3.11.2-slim                    pipeline steps, Debian python3.11 3.11.2
    version: "0.2.0",
    images: {
      postgres: "docker.io/library/postgres:15.20",
      "object-store": "quay.io/minio/minio:RELEASE.2026-02-12T20-18-48Z",
      registry: "docker.io/library/registry:2.8.2",
      mlflow: "ghcr.io/slipway-dev/mlflow:3.17.2",
      "workflow-engine": "quay.io/argoproj/workflow-controller:v4.0.5",
      "api-server": "ghcr.io/slipway-dev/slipway:0.2.0",
      web: "ghcr.io/slipway-dev/slipway:0.2.0",
    },
  },
];

export { ownVersion } from "../apis/version.ts";

const normalize = (version: string) => version.replace(/^v/, "");

/** The release `version` names in `catalog` (this build's releases unless another is given). */
export function findRelease(version: string, catalog: readonly Release[] = releases): Release | undefined {
  return catalog.find((release) => release.version === normalize(version));
}

/** Compares two release versions numerically (major.minor.patch); a pre-release sorts before its release. */
export function compareVersions(a: string, b: string): number {
  const parse = (v: string) => {
    const [core = "", pre] = normalize(v).split("-", 2);
    return { parts: core.split(".").map(Number), pre };
  };
  const left = parse(a);
  const right = parse(b);
  for (let i = 0; i < 3; i++) {
    const diff = (left.parts[i] ?? 0) - (right.parts[i] ?? 0);
    if (diff !== 0) return Math.sign(diff);
  }
  if (left.pre === right.pre) return 0;
  if (left.pre === undefined) return 1;
  if (right.pre === undefined) return -1;
  return left.pre < right.pre ? -1 : 1;
}

export function catalogComponent(name: string): CatalogComponent | undefined {
  return catalog.find((component) => component.name === name);
}
