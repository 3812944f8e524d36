import { CoreV1Api, CustomObjectsApi, type V1Container } from "@kubernetes/client-node";
import { beforeAll, describe, expect, inject, it } from "vitest";
import { ImageBuildKind } from "../../../src/apis/builds/imagebuild.ts";
import { localImageReferences } from "../../../src/dev/real-node/images.ts";
import { realNodePlacement } from "../../../src/dev/real-node/objects.ts";
import { createImageBuild, readImageBuild } from "../../support/builds/operator.ts";
import { adminConfig, testNamespace } from "../../support/cluster.ts";
import { installCrds } from "../../support/crds.ts";
import { grantRole } from "../../support/service-account.ts";
import { type ServerSentEvent, serverSentEvents, serviceAccountToken, startServer } from "./server.ts";

const skipped = inject("realNodeSkipped");
const image = localImageReferences().slipway;
const node = (script: string) => ({
  image,
  imagePullPolicy: "IfNotPresent",
  command: ["/nodejs/bin/node", "-e", script],
});
const spec = { project: "fraud", name: "scorer", version: "v1", artifactUri: "s3://models/fraud/v1" };

type Containers = { initContainers: V1Container[]; containers: V1Container[] };

/** The pod shape of a Kaniko build Job: the artifact fetch, then Kaniko (two lines, 8 s apart). */
const kanikoPod: Containers = {
  initContainers: [{ name: "fetch", ...node(`console.log("fetched the artifact")`) }],
  containers: [
    {
      name: "kaniko",
      ...node(`console.log("step 1 of 2"); setTimeout(() => console.log("step 2 of 2"), 8000)`),
    },
  ],
};

/** The pod shape of a buildah build Job: the artifact fetch, buildah's build, then its push. */
const buildahPod: Containers = {
  initContainers: [
    { name: "fetch-artifact", ...node(`console.log("fetched the artifact")`) },
    { name: "build", ...node(`console.log("STEP 1/1: FROM base"); console.log("built the image")`) },
  ],
  containers: [{ name: "push", ...node(`console.log("pushed the image")`) }],
};

/** A pod standing for the build's Job (the route finds it by its job-name label) on the real node: logs are real. */
async function buildPodOnRealNode(namespace: string, job: string, shape: Containers) {
  await adminConfig()
    .makeApiClient(CoreV1Api)
    .createNamespacedPod({
      namespace,
      body: {
        metadata: { name: `${job}-x1`, labels: { "job-name": job } },
        spec: { ...realNodePlacement(), restartPolicy: "Never", ...shape },
      },
    });
}

/** An ImageBuild `scorer` that is Building in the Job `scorer-job`, whose pod has `shape`; a user who may read its logs. */
async function buildingWithPod(namespace: string, shape: Containers) {
  await createImageBuild(namespace, "scorer", spec);
  await buildPodOnRealNode(namespace, "scorer-job", shape);
  await adminConfig()
    .makeApiClient(CustomObjectsApi)
    .replaceNamespacedCustomObjectStatus({
      group: ImageBuildKind.group,
      version: ImageBuildKind.version,
      plural: ImageBuildKind.plural,
      namespace,
      name: "scorer",
      body: {
        ...(await readImageBuild(namespace, "scorer")),
        status: { phase: "Building", job: { namespace, name: "scorer-job" } },
      },
    });
  const token = await serviceAccountToken(namespace, "scientist");
  await grantRole(namespace, "scientist", "scientist-builds", [
    { apiGroups: [ImageBuildKind.group], resources: ["imagebuilds"], verbs: ["get"] },
    { apiGroups: [""], resources: ["pods"], verbs: ["list"] },
    { apiGroups: [""], resources: ["pods/log"], verbs: ["get"] },
  ]);
  const url = await startServer(namespace);
  return { token, logs: `${url}/api/v1/namespaces/${namespace}/imagebuilds/scorer/logs` };
}

/** Every event of a finished build pod's followed log, up to `end`. */
async function followedToEnd(logs: string, token: string): Promise<ServerSentEvent[]> {
  const response = await fetch(`${logs}?follow=true`, { headers: { authorization: `Bearer ${token}` } });
  expect(response.status).toBe(200);
  const seen: ServerSentEvent[] = [];
  for await (const event of serverSentEvents(response)) {
    if (event.event !== ":") seen.push(event);
    if (event.event === "end") break;
  }
  return seen;
}

const logText = (events: ServerSentEvent[]) =>
  events.flatMap((event) => (event.event === "log" ? [(event.data as { text: string }).text] : [])).join("");

async function kanikoState(namespace: string, pod: string) {
  const read = await adminConfig().makeApiClient(CoreV1Api).readNamespacedPod({ namespace, name: pod });
  return read.status?.containerStatuses?.find((status) => status.name === "kaniko")?.state;
}

describe.skipIf(skipped !== "")(
  `the build log streamed while it builds${skipped ? ` (skipped: ${skipped})` : ""}`,
  () => {
    beforeAll(() => installCrds([ImageBuildKind]));

    it("GET …/logs?follow=true sends each container's lines as the pod writes them, as the caller, and ends with the pod", {
      timeout: 240_000,
    }, async () => {
      const namespace = await testNamespace("buildlog");
      const { token, logs } = await buildingWithPod(namespace, kanikoPod);

      const stranger = await serviceAccountToken(namespace, "stranger");
      const refused = await fetch(`${logs}?follow=true`, {
        headers: { authorization: `Bearer ${stranger}` },
      });
      expect(refused.status).toBe(403);

      const response = await fetch(`${logs}?follow=true`, { headers: { authorization: `Bearer ${token}` } });
      expect(response.status).toBe(200);
      expect(response.headers.get("content-type")).toMatch(/text\/event-stream/);
      const events = serverSentEvents(response);
      const seen: ServerSentEvent[] = [];
      const text = () => logText(seen);
      const next = async () => {
        for (let read = await events.next(); !read.done; read = await events.next())
          if (read.value.event !== ":") {
            seen.push(read.value);
            return read.value;
          }
        return undefined;
      };
      while (!text().includes("step 1 of 2")) expect(await next()).toBeDefined();
      // the line arrived while the build container still runs (its second line is 8 s away)
      // (the pod's status may still lag behind the kubelet: it has not ended, whatever it says)
      expect((await kanikoState(namespace, "scorer-job-x1"))?.terminated).toBeUndefined();
      expect(text()).not.toContain("step 2 of 2");

      while ((await next())?.event !== "end");
      expect(text()).toBe("fetched the artifact\nstep 1 of 2\nstep 2 of 2\n");
      expect(seen[0]).toEqual({
        event: "start",
        data: { pod: "scorer-job-x1", containers: ["fetch", "kaniko"], build: "kaniko" },
      });
      expect(seen.filter((event) => event.event === "container").map((event) => event.data)).toEqual([
        { name: "fetch" },
        { name: "kaniko" },
      ]);
      expect((await kanikoState(namespace, "scorer-job-x1"))?.terminated?.exitCode).toBe(0);
      expect(await events.next()).toMatchObject({ done: true }); // the stream ends with the build's pod

      const read = await fetch(logs, { headers: { authorization: `Bearer ${token}` } });
      expect(await read.json()).toEqual({
        pod: "scorer-job-x1",
        container: "kaniko",
        logs: "step 1 of 2\nstep 2 of 2\n",
      });
    });

    it("GET …/logs of a buildah build reads its build container (an init container, not the fetch or the push); the stream names it", {
      timeout: 240_000,
    }, async () => {
      const namespace = await testNamespace("buildlog-buildah");
      const { token, logs } = await buildingWithPod(namespace, buildahPod);
      const core = adminConfig().makeApiClient(CoreV1Api);
      await expect
        .poll(
          async () => (await core.readNamespacedPod({ namespace, name: "scorer-job-x1" })).status?.phase,
          {
            timeout: 120_000,
            interval: 500,
          },
        )
        .toBe("Succeeded");

      const read = await fetch(logs, { headers: { authorization: `Bearer ${token}` } });
      expect(read.status).toBe(200);
      expect(await read.json()).toEqual({
        pod: "scorer-job-x1",
        container: "build",
        logs: "STEP 1/1: FROM base\nbuilt the image\n",
      });

      const events = await followedToEnd(logs, token);
      expect(events[0]).toEqual({
        event: "start",
        data: { pod: "scorer-job-x1", containers: ["fetch-artifact", "build", "push"], build: "build" },
      });
      expect(logText(events)).toBe(
        "fetched the artifact\nSTEP 1/1: FROM base\nbuilt the image\npushed the image\n",
      );
    });
  },
);
