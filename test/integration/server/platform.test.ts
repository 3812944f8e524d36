import { beforeAll, describe, expect, it } from "vitest";
import { PlatformKind } from "../../../src/apis/platform/platform.ts";
import { type ReleaseCatalog, releaseCatalog } from "../../../src/platform/version-change.ts";
import { eventually, testNamespace } from "../../support/cluster.ts";
import { installCrds } from "../../support/crds.ts";
import {
  createPlatform,
  grantPlatformAccess,
  readPlatformAsAdmin,
  type ServerSentEvent,
  serverSentEvents,
  serviceAccountToken,
  startServer,
  startServerApp,
  writePlatformStatus,
} from "./server.ts";

beforeAll(() => installCrds([PlatformKind]));

/** A namespace with a Platform at `version`, a server for it, and an operator's token allowed to use it. */
async function setup(version: string, heartbeatSeconds?: number, releases?: ReleaseCatalog) {
  const namespace = await testNamespace("srv");
  await createPlatform(namespace, version);
  await writePlatformStatus(namespace, {
    phase: "Running",
    version,
    ready: "1/1",
    components: [{ name: "postgres", phase: "Ready", ready: "1/1", version }],
  });
  const url = await startServer(namespace, {
    ...(heartbeatSeconds ? { heartbeatSeconds } : {}),
    ...(releases ? { releases } : {}),
  });
  const token = await serviceAccountToken(namespace, "operator");
  await grantPlatformAccess(namespace, "operator", ["get", "list", "watch", "patch"]);
  const call = (path: string, init: RequestInit = {}) =>
    fetch(`${url}/api/v1${path}`, {
      ...init,
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json", ...init.headers },
    });
  const update = (body: unknown) => call("/platform/update", { method: "POST", body: JSON.stringify(body) });
  return { namespace, call, update };
}

describe("platform endpoints against a real Platform", () => {
  it("GET shows phase, versions and components; versions come from the release catalog", async () => {
    const { namespace, call } = await setup("0.0.9");
    const view = await call("/platform");
    expect(view.status).toBe(200);
    expect(await view.json()).toMatchObject({
      name: "slipway",
      namespace,
      phase: "Running",
      version: "0.0.9",
      desiredVersion: "0.0.9",
      components: [{ name: "postgres", phase: "Ready", ready: "1/1", version: "0.0.9" }],
    });
    const versions = await (await call("/platform/versions")).json();
    expect(versions).toEqual({
      running: "0.0.9",
      desired: "0.0.9",
      versions: [
        { version: "0.0.9", current: true, upgrade: false },
        { version: "0.1.0", current: false, upgrade: true },
        { version: "0.2.0", current: false, upgrade: true },
      ],
    });
  });

  it("POST update sets spec.version; refuses unknown versions (400), downgrades (409) and bad bodies (400 naming the field)", async () => {
    const { namespace, update } = await setup("0.0.9");

    const unknown = await update({ version: "9.9.9" });
    expect(unknown.status).toBe(400);
    expect(await unknown.json()).toMatchObject({ field: "body.version", message: /unknown version 9\.9\.9/ });

    const missing = await update({});
    expect(missing.status).toBe(400);
    expect(await missing.json()).toEqual({
      statusCode: 400,
      error: "Bad Request",
      message: "body.version is required",
      field: "body.version",
    });
    const malformed = await update({ version: "latest" });
    expect(malformed.status).toBe(400);
    expect(await malformed.json()).toMatchObject({ field: "body.version", message: /must match pattern/ });
    const extra = await update({ version: "0.1.0", colour: "blue" });
    expect(extra.status).toBe(400);
    expect(await extra.json()).toMatchObject({ field: "body.colour" });
    expect((await readPlatformAsAdmin(namespace)).spec.version).toBe("0.0.9");

    const accepted = await update({ version: "0.1.0" });
    expect(accepted.status).toBe(202);
    expect(await accepted.json()).toMatchObject({ changed: true, from: "0.0.9", to: "0.1.0" });
    expect((await readPlatformAsAdmin(namespace)).spec.version).toBe("0.1.0");

    const again = await update({ version: "v0.1.0" });
    expect(again.status).toBe(200);
    expect(await again.json()).toMatchObject({ changed: false, to: "0.1.0" });

    const downgrade = await update({ version: "0.0.9" });
    expect(downgrade.status).toBe(409);
    expect(await downgrade.json()).toMatchObject({
      field: "body.version",
      message: /downgrade from 0\.1\.0/,
    });
    expect((await readPlatformAsAdmin(namespace)).spec.version).toBe("0.1.0");
    expect((await update({ version: "0.0.9", force: true })).status).toBe(202);
    expect((await readPlatformAsAdmin(namespace)).spec.version).toBe("0.0.9");
  });

  it("POST update with acknowledge adds the release's gates to spec.acknowledgedGates; a gate the release does not declare is 400 naming body.acknowledge", async () => {
    const gated: ReleaseCatalog = {
      ...releaseCatalog,
      gates: (version) =>
        version === "0.1.0"
          ? [{ name: "db-migration", description: "the schema moves to a new layout" }]
          : [],
    };
    const { namespace, update } = await setup("0.0.9", undefined, gated);

    const unknown = await update({ version: "0.1.0", acknowledge: ["db-migrate"] });
    expect(unknown.status).toBe(400);
    expect(await unknown.json()).toMatchObject({
      field: "body.acknowledge",
      message: "body.acknowledge db-migrate: release 0.1.0 declares no such gate (its gates: db-migration)",
    });
    const malformed = await update({ version: "0.1.0", acknowledge: ["DB"] });
    expect(malformed.status).toBe(400);
    expect(await malformed.json()).toMatchObject({
      field: "body.acknowledge",
      message: /must be a gate name/,
    });
    expect((await readPlatformAsAdmin(namespace)).spec).toMatchObject({ version: "0.0.9" });
    expect((await readPlatformAsAdmin(namespace)).spec.acknowledgedGates).toBeUndefined();

    // the update asked for without the gate, then the gate acknowledged for the version already asked for
    expect((await update({ version: "0.1.0" })).status).toBe(202);
    const acknowledged = await update({ version: "0.1.0", acknowledge: ["db-migration"] });
    expect(acknowledged.status).toBe(202);
    expect(await acknowledged.json()).toMatchObject({ changed: true, to: "0.1.0" });
    expect((await readPlatformAsAdmin(namespace)).spec).toMatchObject({
      version: "0.1.0",
      acknowledgedGates: ["db-migration"],
    });
    const again = await update({ version: "0.1.0", acknowledge: ["db-migration"] });
    expect(again.status).toBe(200);
    expect(await again.json()).toMatchObject({ changed: false, to: "0.1.0" });
    expect((await readPlatformAsAdmin(namespace)).spec.acknowledgedGates).toEqual(["db-migration"]);
  });

  it("GET events streams the current state, then phase and component changes, with heartbeats", async () => {
    const { namespace, call } = await setup("0.0.9", 1);
    const controller = new AbortController();
    const response = await call("/platform/events", { signal: controller.signal });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toContain("text/event-stream");
    const events = serverSentEvents(response);
    const next = async (accept: (event: ServerSentEvent) => boolean) => {
      // Pulled one at a time: a for-await loop would close the generator when it returns.
      for (let read = await events.next(); !read.done; read = await events.next()) {
        if (accept(read.value)) return read.value;
      }
      throw new Error("the stream ended");
    };

    expect(await next((e) => e.event === "platform")).toMatchObject({
      data: { phase: "Running", version: "0.0.9" },
    });
    expect(await next((e) => e.event === ":")).toEqual({ event: ":", data: "heartbeat" });

    await writePlatformStatus(namespace, {
      phase: "Updating",
      version: "0.0.9",
      components: [{ name: "postgres", phase: "Updating", ready: "0/1", version: "0.0.9" }],
    });
    expect(await next((e) => e.event === "phase")).toEqual({
      event: "phase",
      data: { phase: "Updating", version: "0.0.9", desiredVersion: "0.0.9" },
    });
    expect(await next((e) => e.event === "component")).toEqual({
      event: "component",
      data: { name: "postgres", phase: "Updating", ready: "0/1", version: "0.0.9" },
    });
    controller.abort();
  });

  it("releases a stream when its client leaves, ends open streams when the server shuts down, and answers 404 JSON when there is no Platform", async () => {
    const namespace = await testNamespace("srv");
    const { url, app } = await startServerApp(namespace);
    const token = await serviceAccountToken(namespace, "viewer");
    await grantPlatformAccess(namespace, "viewer", ["get", "list", "watch"]);
    const headers = { authorization: `Bearer ${token}` };

    const missing = await fetch(`${url}/api/v1/platform`, { headers });
    expect(missing.status).toBe(404);
    expect(await missing.json()).toMatchObject({ message: `platform ${namespace}/slipway does not exist` });

    // A client that goes away releases its stream (and the watch behind it).
    const leaving = new AbortController();
    const left = await fetch(`${url}/api/v1/platform/events`, { headers, signal: leaving.signal });
    expect(left.status).toBe(200);
    await eventually(
      "the first stream registered",
      async () => app.eventStreams.size,
      (size) => size === 1,
    );
    leaving.abort();
    await eventually(
      "the stream released",
      async () => app.eventStreams.size,
      (size) => size === 0,
    );

    const events = serverSentEvents(await fetch(`${url}/api/v1/platform/events`, { headers }));
    let first = await events.next();
    while (!first.done && first.value.event === ":") first = await events.next();
    expect(first.value).toEqual({ event: "absent", data: { name: "slipway", namespace } });
    await app.close();
    let rest = await events.next();
    while (!rest.done) rest = await events.next();
    expect(rest.done).toBe(true);
  });
});
