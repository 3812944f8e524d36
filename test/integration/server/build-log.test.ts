import { CoreV1Api, CustomObjectsApi } from "@kubernetes/client-node";
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

/** A pod standing for the build's Job (the route finds it by its job-name label) on the real node: logs are real. */
async function buildPodOnRealNode(namespace: string, job: string) {
  await adminConfig()
    .makeApiClient(CoreV1Api)
    .createNamespacedPod({
      namespace,
      body: {
        metadata: { name: `${job}-x1`, labels: { "job-name": job } },
        spec: {
          ...realNodePlacement(),
          restartPolicy: "Never",
          initContainers: [{ name: "fetch", ...node(`console.log("fetched the artifact")`) }],
          containers: [
            {
              name: "kaniko",
              ...node(`console.log("step 1 of 2"); setTimeout(() => console.log("step 2 of 2"), 8000)`),
            },
          ],
        },
      },
    });
}

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
      await createImageBuild(namespace, "scorer", spec);
      await buildPodOnRealNode(namespace, "scorer-job");
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
      const logs = `${url}/api/v1/namespaces/${namespace}/imagebuilds/scorer/logs`;

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
      const text = () =>
        seen
          .flatMap((event) => (event.event === "log" ? [(event.data as { text: string }).text] : []))
          .join("");
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
        data: { pod: "scorer-job-x1", containers: ["fetch", "kaniko"] },
      });
      expect(seen.filter((event) => event.event === "container").map((event) => event.data)).toEqual([
        { name: "fetch" },
        { name: "kaniko" },
      ]);
      expect((await kanikoState(namespace, "scorer-job-x1"))?.terminated?.exitCode).toBe(0);
      expect(await events.next()).toMatchObject({ done: true }); // the stream ends with the build's pod
    });
  },
);
