import { beforeAll, describe, expect, it } from "vitest";
import { ImageBuildKind } from "../../../src/apis/builds/imagebuild.ts";
import { createImageBuild, deleteImageBuild } from "../../support/builds/operator.ts";
import { testNamespace } from "../../support/cluster.ts";
import { installCrds } from "../../support/crds.ts";
import { grantRole } from "../../support/service-account.ts";
import { writeBuildStatus } from "./build-pods.ts";
import { type ServerSentEvent, serverSentEvents, serviceAccountToken, startServer } from "./server.ts";

const spec = { project: "fraud", name: "scorer", version: "v1", artifactUri: "s3://models/fraud/v1" };

/** Reads events of `response` until one satisfies `accept`; returns every event read (heartbeats left out). */
async function readUntil(
  events: AsyncGenerator<ServerSentEvent>,
  accept: (event: ServerSentEvent) => boolean,
): Promise<ServerSentEvent[]> {
  const seen: ServerSentEvent[] = [];
  // next(), not for-await: leaving a for-await loop would end the generator (and the stream)
  for (let next = await events.next(); !next.done; next = await events.next()) {
    const event = next.value;
    if (event.event === ":") continue;
    seen.push(event);
    if (accept(event)) return seen;
  }
  throw new Error(`the stream ended; seen: ${JSON.stringify(seen)}`);
}

describe("event streams of a namespace's resources (GET /watch/namespaces/:namespace/<plural>)", () => {
  beforeAll(() => installCrds([ImageBuildKind]));

  it("sends a snapshot, then each create, status change and delete, as the caller; 403 as JSON without rights", async () => {
    const namespace = await testNamespace("ev-builds");
    await createImageBuild(namespace, "first", spec);
    const url = await startServer(namespace);
    const token = await serviceAccountToken(namespace, "viewer");
    await grantRole(namespace, "viewer", "viewer-builds", [
      { apiGroups: [ImageBuildKind.group], resources: ["imagebuilds"], verbs: ["list", "watch"] },
    ]);
    const controller = new AbortController();
    const response = await fetch(`${url}/api/v1/watch/namespaces/${namespace}/imagebuilds`, {
      headers: { authorization: `Bearer ${token}` },
      signal: controller.signal,
    });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/text\/event-stream/);
    const events = serverSentEvents(response);
    const [snapshot] = await readUntil(events, (event) => event.event === "snapshot");
    expect(snapshot?.data).toEqual({ items: [expect.objectContaining({ name: "first", namespace, spec })] });

    await createImageBuild(namespace, "second", { ...spec, version: "v2" });
    await readUntil(
      events,
      (event) => event.event === "upsert" && (event.data as { name: string }).name === "second",
    );
    await writeBuildStatus(namespace, "second", { phase: "Building", attempts: 1 });
    const building = await readUntil(events, (event) => event.event === "upsert");
    expect(building.at(-1)?.data).toMatchObject({
      name: "second",
      status: { phase: "Building", attempts: 1 },
    });
    await deleteImageBuild(namespace, "first");
    const deleted = await readUntil(events, (event) => event.event === "delete");
    expect(deleted.at(-1)?.data).toEqual({ name: "first" });
    controller.abort();

    // one object: ?name= narrows the stream (a field selector on the watch)
    const closeOne = new AbortController();
    const one = await fetch(`${url}/api/v1/watch/namespaces/${namespace}/imagebuilds?name=second`, {
      headers: { authorization: `Bearer ${token}` },
      signal: closeOne.signal,
    });
    const [only] = await readUntil(serverSentEvents(one), (event) => event.event === "snapshot");
    expect((only?.data as { items: { name: string }[] } | undefined)?.items.map((item) => item.name)).toEqual(
      ["second"],
    );
    closeOne.abort();

    const stranger = await serviceAccountToken(namespace, "stranger");
    const refused = await fetch(`${url}/api/v1/watch/namespaces/${namespace}/imagebuilds`, {
      headers: { authorization: `Bearer ${stranger}` },
    });
    expect(refused.status).toBe(403);
    expect(await refused.json()).toMatchObject({ statusCode: 403, message: /imagebuilds/ });
  });

  it("after a list page (?resourceVersion=): no snapshot, only later changes; expired when the API server no longer has them", async () => {
    const namespace = await testNamespace("ev-paged");
    await createImageBuild(namespace, "first", spec);
    const url = await startServer(namespace);
    const token = await serviceAccountToken(namespace, "viewer");
    await grantRole(namespace, "viewer", "viewer-builds", [
      { apiGroups: [ImageBuildKind.group], resources: ["imagebuilds"], verbs: ["list", "watch"] },
    ]);
    const headers = { authorization: `Bearer ${token}` };
    const page = (await (
      await fetch(`${url}/api/v1/namespaces/${namespace}/imagebuilds?limit=1`, { headers })
    ).json()) as { items: { name: string }[]; resourceVersion: string };
    expect(page.items.map((item) => item.name)).toEqual(["first"]);

    const controller = new AbortController();
    const response = await fetch(
      `${url}/api/v1/watch/namespaces/${namespace}/imagebuilds?resourceVersion=${page.resourceVersion}`,
      { headers, signal: controller.signal },
    );
    expect(response.status).toBe(200);
    const events = serverSentEvents(response);
    await readUntil(events, (event) => event.event === "watching");
    await createImageBuild(namespace, "second", { ...spec, version: "v2" });
    await deleteImageBuild(namespace, "first");
    const seen = await readUntil(events, (event) => event.event === "delete");
    // "first" was in the page: only its deletion is told
    expect(seen.map((event) => event.event)).not.toContain("snapshot");
    expect(seen.find((event) => event.event === "upsert")?.data).toMatchObject({ name: "second" });
    expect(seen.at(-1)?.data).toEqual({ name: "first" });
    controller.abort();

    // a resourceVersion older than the API server keeps changes for: expired, and the stream ends
    const old = await fetch(`${url}/api/v1/watch/namespaces/${namespace}/imagebuilds?resourceVersion=1`, {
      headers,
    });
    if (old.status === 200) {
      const ended = await readUntil(serverSentEvents(old), (event) => event.event === "expired");
      expect(ended.at(-1)).toMatchObject({ event: "expired", data: {} });
    } else {
      expect(old.status).toBe(410);
      expect(await old.json()).toMatchObject({ statusCode: 410 });
    }
  });
});
