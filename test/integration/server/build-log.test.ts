import { beforeAll, describe, expect, inject, it } from "vitest";
import { ImageBuildKind } from "../../../src/apis/builds/imagebuild.ts";
import { skipFor } from "../../support/allowed-skips.ts";
import { testNamespace } from "../../support/cluster.ts";
import { installCrds } from "../../support/crds.ts";
import { grantRole } from "../../support/service-account.ts";
import {
  type BuildPodShape,
  buildahPod,
  buildingWithPod,
  buildLogRules,
  buildPodContainerState,
  kanikoPod,
} from "./build-pods.ts";
import { type ServerSentEvent, serverSentEvents, serviceAccountToken, startServer } from "./server.ts";

const skipped = inject("realNodeSkipped");

/** The build `scorer` Building with a pod of `shape`, a server, and a user who may read its logs. */
async function withBuildPod(namespace: string, shape: BuildPodShape) {
  await buildingWithPod(namespace, shape);
  const token = await serviceAccountToken(namespace, "scientist");
  await grantRole(namespace, "scientist", "scientist-builds", [
    { apiGroups: [ImageBuildKind.group], resources: ["imagebuilds"], verbs: ["get"] },
    ...buildLogRules,
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

describe("the build log streamed while it builds", skipFor(skipped), () => {
  beforeAll(() => installCrds([ImageBuildKind]));

  it("GET …/logs?follow=true sends each container's lines as the pod writes them, as the caller, and ends with the pod", {
    timeout: 240_000,
  }, async () => {
    const namespace = await testNamespace("buildlog");
    const { token, logs } = await withBuildPod(namespace, kanikoPod());

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
    // the line arrived while the build container still runs (its second line is 20 s away)
    // (the pod's status may still lag behind the kubelet: it has not ended, whatever it says)
    expect((await buildPodContainerState(namespace, "kaniko"))?.terminated).toBeUndefined();
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
    expect((await buildPodContainerState(namespace, "kaniko"))?.terminated?.exitCode).toBe(0);
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
    const { token, logs } = await withBuildPod(namespace, buildahPod);
    // the push container ran last: the build container's log is complete
    await expect
      .poll(async () => (await buildPodContainerState(namespace, "push"))?.terminated?.exitCode, {
        timeout: 120_000,
        interval: 500,
      })
      .toBe(0);

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
});
