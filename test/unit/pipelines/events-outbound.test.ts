/** A tenant's event sink through the operator's outbound policy, with a real listener on 127.0.0.1. */
import { createServer, type Server } from "node:http";
import { type AddressInfo, createServer as createTcpServer } from "node:net";
import { CloudEvent } from "cloudevents";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { transports } from "../../../src/pipelines/events/transports.ts";
import { outboundPolicy, unreachable } from "../../../src/pipelines/outbound-policy.ts";

let server: Server;
let port = 0;
const seen: string[] = [];

beforeAll(async () => {
  server = createServer((request, response) => {
    seen.push(request.url ?? "");
    if (request.url === "/moved")
      response.writeHead(307, { location: `http://127.0.0.1:${port}/events` }).end();
    else if (request.url === "/fails")
      response.writeHead(500, "db password is hunter2").end("internal detail");
    else if (request.url === "/silent")
      return; // never answers
    else response.writeHead(202).end();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(() => server?.close());

const event = new CloudEvent({ type: "dev.slipway.run.succeeded", source: "/test", data: { ok: true } });

describe("a tenant's event sink and the outbound policy", () => {
  it("a sink on the operator's loopback gets nothing (permanent, naming the rule); the operator's own sinks are not checked", async () => {
    const { send, close } = transports(outboundPolicy());
    seen.length = 0;
    const url = `http://127.0.0.1:${port}/events`;
    expect(await send({ url }, event, 2000, true)).toEqual({
      ok: false,
      error:
        "eventSinks[].url: 127.0.0.1 is loopback, not allowed by the operator's outbound policy (SLIPWAY_OUTBOUND_ALLOW)",
      permanent: true,
    });
    expect(await send({ url: `http://localhost:${port}/events#x` }, event, 2000, true)).toMatchObject({
      ok: false,
      permanent: true,
    });
    expect(seen).toEqual([]);
    expect(await send({ url }, event, 2000, false)).toEqual({ ok: true });
    expect(seen).toEqual(["/events"]);
    await close();
  });

  it("an allowed sink is delivered to; a redirect is not followed", async () => {
    const { send, close } = transports(outboundPolicy({ allow: ["127.0.0.1"] }));
    seen.length = 0;
    expect(await send({ url: `http://127.0.0.1:${port}/events` }, event, 2000, true)).toEqual({ ok: true });
    expect(await send({ url: `http://127.0.0.1:${port}/moved` }, event, 2000, true)).toMatchObject({
      ok: false,
    });
    expect(seen).toEqual(["/events", "/moved"]);
    await close();
  });

  it("a failed attempt at a tenant's sink says only a status code or one fixed reason: refused, reset and silent ports look alike", async () => {
    const { send, close } = transports(outboundPolicy({ allow: ["127.0.0.1"] }));
    // a port nothing listens on (refused), one that accepts and hangs up (reset), one that never answers
    const closed = createTcpServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const closedPort = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const hangup = createTcpServer((socket) => socket.destroy());
    await new Promise<void>((resolve) => hangup.listen(0, "127.0.0.1", resolve));
    const hangupPort = (hangup.address() as AddressInfo).port;
    const outcomes = [
      await send({ url: `http://127.0.0.1:${closedPort}/events` }, event, 500, true),
      await send({ url: `http://127.0.0.1:${hangupPort}/events` }, event, 500, true),
      await send({ url: `http://127.0.0.1:${port}/silent` }, event, 500, true),
      await send({ nats: { server: `nats://127.0.0.1:${closedPort}`, subject: "runs" } }, event, 500, true),
    ];
    for (const outcome of outcomes) expect(outcome).toEqual({ ok: false, error: unreachable });
    // the server's own reason phrase and body never: the status with its standard phrase
    expect(await send({ url: `http://127.0.0.1:${port}/fails` }, event, 2000, true)).toEqual({
      ok: false,
      error: "HTTP 500 Internal Server Error",
    });
    // the installer's own sinks keep the detail that helps whoever runs them
    expect(await send({ url: `http://127.0.0.1:${closedPort}/events` }, event, 500, false)).toEqual({
      ok: false,
      error: "connection failed (ECONNREFUSED)",
    });
    await new Promise<void>((resolve) => hangup.close(() => resolve()));
    await close();
  });
});
