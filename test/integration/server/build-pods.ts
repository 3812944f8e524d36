/**
 * Build pods for the build-log tests (REST and browser): pods shaped like a backend's build Job's,
 * on the real node (their logs are real), found by the server through the build's status.
 */
import { CoreV1Api, CustomObjectsApi, type V1Container } from "@kubernetes/client-node";
import { ImageBuildKind } from "../../../src/apis/builds/imagebuild.ts";
import { localImageReferences } from "../../../src/dev/real-node/images.ts";
import { realNodePlacement } from "../../../src/dev/real-node/objects.ts";
import { createImageBuild, readImageBuild } from "../../support/builds/operator.ts";
import { adminConfig } from "../../support/cluster.ts";

const node = (script: string) => ({
  image: localImageReferences().slipway,
  imagePullPolicy: "IfNotPresent",
  command: ["/nodejs/bin/node", "-e", script],
});

export type BuildPodShape = { initContainers: V1Container[]; containers: V1Container[] };

/** A Kaniko build Job's pod: the artifact fetch, then Kaniko (two lines, `gapMs` apart). */
export const kanikoPod = (gapMs = 20_000): BuildPodShape => ({
  initContainers: [{ name: "fetch", ...node(`console.log("fetched the artifact")`) }],
  containers: [
    {
      name: "kaniko",
      ...node(`console.log("step 1 of 2"); setTimeout(() => console.log("step 2 of 2"), ${gapMs})`),
    },
  ],
});

/** A buildah build Job's pod: the artifact fetch, buildah's build, then its push. */
export const buildahPod: BuildPodShape = {
  initContainers: [
    { name: "fetch-artifact", ...node(`console.log("fetched the artifact")`) },
    { name: "build", ...node(`console.log("STEP 1/1: FROM base"); console.log("built the image")`) },
  ],
  containers: [{ name: "push", ...node(`console.log("pushed the image")`) }],
};

export const buildSpec = {
  project: "fraud",
  name: "scorer",
  version: "v1",
  artifactUri: "s3://models/fraud/v1",
};

/** The rights to read a build's log: its pods and their logs. */
export const buildLogRules = [
  { apiGroups: [""], resources: ["pods"], verbs: ["list"] },
  { apiGroups: [""], resources: ["pods/log"], verbs: ["get"] },
];

/**
 * An ImageBuild `scorer` Building in the Job `scorer-job`, whose pod `scorer-job-x1` (on the real
 * node, labelled as a Job's pod) has `shape`.
 */
export async function buildingWithPod(namespace: string, shape: BuildPodShape): Promise<void> {
  await createImageBuild(namespace, "scorer", buildSpec);
  await adminConfig()
    .makeApiClient(CoreV1Api)
    .createNamespacedPod({
      namespace,
      body: {
        metadata: { name: "scorer-job-x1", labels: { "job-name": "scorer-job" } },
        spec: { ...realNodePlacement(), restartPolicy: "Never", ...shape },
      },
    });
  await writeBuildStatus(namespace, "scorer", { phase: "Building", job: { namespace, name: "scorer-job" } });
}

/** Writes an ImageBuild's status as the build controller would (admin). */
export async function writeBuildStatus(namespace: string, name: string, status: Record<string, unknown>) {
  await adminConfig()
    .makeApiClient(CustomObjectsApi)
    .replaceNamespacedCustomObjectStatus({
      group: ImageBuildKind.group,
      version: ImageBuildKind.version,
      plural: ImageBuildKind.plural,
      namespace,
      name,
      body: { ...(await readImageBuild(namespace, name)), status },
    });
}

/** The state of a container of the build pod, as the API server has it. */
export async function buildPodContainerState(namespace: string, container: string) {
  const read = await adminConfig()
    .makeApiClient(CoreV1Api)
    .readNamespacedPod({ namespace, name: "scorer-job-x1" });
  const statuses = [...(read.status?.initContainerStatuses ?? []), ...(read.status?.containerStatuses ?? [])];
  return statuses.find((status) => status.name === container)?.state;
}
