import { request as httpRequest, type IncomingMessage } from "node:http";
import { CoreV1Api } from "@kubernetes/client-node";
import { beforeAll, describe, expect, it } from "vitest";
import { ImageBuildKind } from "../../../src/apis/builds/imagebuild.ts";
import { PlatformKind } from "../../../src/apis/platform/platform.ts";
import { kubernetesTokenReviewer, type TokenReviewer } from "../../../src/server/auth.ts";
import { adminConfig, eventually, testNamespace } from "../../support/cluster.ts";
import { installCrds } from "../../support/crds.ts";
import { grantRole } from "../../support/service-account.ts";
import {
  createPlatform,
  grantPlatformAccess,
  serverSentEvents,
  serviceAccountToken,
  startServerApp,
  writePlatformStatus,
} from "./server.ts";

beforeAll(() => installCrds([PlatformKind, ImageBuildKind]));

/** The real TokenReview (as the admin), fronted in-process to count what reaches the API server. */
function countedReviews(): { review: TokenReviewer; reviewed: string[] } {
  const real = kubernetesTokenReviewer(adminConfig());
  const reviewed: string[] = [];
  return {
    reviewed,
    review: (token) => {
      reviewed.push(token);
      return real(token);
    },
  };
}

/** Another token of an existing ServiceAccount (TokenRequest). */
async function anotherToken(namespace: string, name: string): Promise<string> {
  const minted = await adminConfig()
    .makeApiClient(CoreV1Api)
    .createNamespacedServiceAccountToken({ namespace, name, body: { spec: { expirationSeconds: 3600 } } });
  return minted.status?.token ?? "";
}

const get = (url: string, token: string, signal?: AbortSignal) =>
  fetch(url, { headers: { authorization: `Bearer ${token}` }, ...(signal ? { signal } : {}) });

async function statuses(responses: Promise<Response>[]): Promise<Record<number, number>> {
  const counts: Record<number, number> = {};
  for (const response of await Promise.all(responses)) {
    counts[response.status] = (counts[response.status] ?? 0) + 1;
    await response.body?.cancel();
  }
  return counts;
}

describe("slipway server under abuse: token reviews", () => {
  it("200 requests with the same junk token cost one TokenReview (rejections are remembered)", async () => {
    const namespace = await testNamespace("abuse");
    const counted = countedReviews();
    const { url } = await startServerApp(namespace, {
      reviewToken: counted.review,
      limits: { authFailuresPerMinute: 1000 },
    });
    const junk = "junk-token-that-kubernetes-never-issued";
    const first = await statuses(Array.from({ length: 100 }, () => get(`${url}/api/v1/platform`, junk)));
    for (let i = 0; i < 100; i++) expect((await get(`${url}/api/v1/platform`, junk)).status).toBe(401);
    expect(first).toEqual({ 401: 100 });
    expect(counted.reviewed).toHaveLength(1);
  });

  it("a client's authentication failures are rate limited: 429 JSON with Retry-After, no review beyond the allowance", async () => {
    const namespace = await testNamespace("abuse");
    await createPlatform(namespace, "0.0.9");
    const counted = countedReviews();
    const { url } = await startServerApp(namespace, {
      reviewToken: counted.review,
      limits: { authFailuresPerMinute: 30 },
    });
    const token = await serviceAccountToken(namespace, "viewer");
    await grantPlatformAccess(namespace, "viewer", ["get"]);
    expect((await get(`${url}/api/v1/platform`, token)).status).toBe(200);

    const guesses = await Promise.all(
      Array.from({ length: 200 }, (_, i) => get(`${url}/api/v1/platform`, `guess-${i}`)),
    );
    const refused = guesses.filter((response) => response.status === 401).length;
    const limited = guesses.filter((response) => response.status === 429);
    // 30 at once, and one more every 2 s the burst takes on a loaded machine
    expect(refused).toBeGreaterThanOrEqual(30);
    expect(refused).toBeLessThanOrEqual(33);
    expect(refused + limited.length).toBe(200);
    expect(counted.reviewed).toHaveLength(1 + refused);
    expect(Number(limited[0]?.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    expect(await limited[0]?.json()).toMatchObject({
      statusCode: 429,
      error: "Too Many Requests",
      message: /too many authentication failures from 127\.0\.0\.1: try again in \d+ s/,
    });
    // a token accepted before is still served without a review while the client is limited
    expect((await get(`${url}/api/v1/platform`, token)).status).toBe(200);
    expect(counted.reviewed).toHaveLength(1 + refused);
  });

  it("the accepted-token cache forgets the least recently used token past its size, not every token", async () => {
    const namespace = await testNamespace("abuse");
    await createPlatform(namespace, "0.0.9");
    const counted = countedReviews();
    const { url } = await startServerApp(namespace, {
      reviewToken: counted.review,
      limits: { tokenCacheEntries: 3, tokenCacheSeconds: 300 },
    });
    const first = await serviceAccountToken(namespace, "viewer");
    await grantPlatformAccess(namespace, "viewer", ["get"]);
    const others = [await anotherToken(namespace, "viewer"), await anotherToken(namespace, "viewer")];
    const fourth = await anotherToken(namespace, "viewer");
    for (const token of [first, ...others, first, fourth, first])
      expect((await get(`${url}/api/v1/platform`, token)).status).toBe(200);
    // first was used most recently each time: only others[0], the least recently used, was forgotten
    expect(counted.reviewed).toEqual([first, ...others, fourth]);
    expect((await get(`${url}/api/v1/platform`, others[1] as string)).status).toBe(200);
    expect((await get(`${url}/api/v1/platform`, others[0] as string)).status).toBe(200);
    expect(counted.reviewed).toEqual([first, ...others, fourth, others[0]]);
  });
});

/** Opens an event stream and waits for its snapshot; the controller closes it. */
async function openStream(url: string, token: string) {
  const controller = new AbortController();
  const response = await get(url, token, controller.signal);
  if (response.status !== 200) return { response, controller };
  const events = serverSentEvents(response);
  for (let next = await events.next(); !next.done; next = await events.next())
    if (next.value.event === "snapshot") break;
  return { response, controller, events };
}

describe("slipway server under abuse: event streams", () => {
  it("caps streams per user and in total with 429 JSON (before any upstream watch); a closed stream frees its slot", async () => {
    const namespace = await testNamespace("abuse");
    const { url, app } = await startServerApp(namespace, { limits: { streamsPerUser: 3, streamsTotal: 5 } });
    const tokens: Record<string, string> = {};
    for (const user of ["alice", "bob", "carol"]) {
      tokens[user] = await serviceAccountToken(namespace, user);
      await grantRole(namespace, user, `${user}-builds`, [
        { apiGroups: [ImageBuildKind.group], resources: ["imagebuilds"], verbs: ["list", "watch"] },
      ]);
    }
    const watch = `${url}/api/v1/watch/namespaces/${namespace}/imagebuilds`;
    const alice = [];
    for (let i = 0; i < 3; i++) alice.push(await openStream(watch, tokens.alice as string));
    expect(alice.map((stream) => stream.response.status)).toEqual([200, 200, 200]);
    const fourth = await get(watch, tokens.alice as string);
    expect(fourth.status).toBe(429);
    expect(fourth.headers.get("retry-after")).toBe("5");
    expect(await fourth.json()).toMatchObject({ statusCode: 429, message: /alice has 3 streams open/ });

    for (let i = 0; i < 2; i++)
      expect((await openStream(watch, tokens.bob as string)).response.status).toBe(200);
    const overTotal = await get(watch, tokens.carol as string);
    expect(overTotal.status).toBe(429);
    expect(await overTotal.json()).toMatchObject({ message: /the server has 5 streams open/ });
    expect(app.eventStreams.size).toBe(5);

    alice[0]?.controller.abort();
    await eventually(
      "a slot freed",
      async () => app.streamLimits.slots.total,
      (total) => total === 4,
    );
    expect((await openStream(watch, tokens.carol as string)).response.status).toBe(200);
  });

  it("drops a reader that does not read instead of buffering its events without bound", async () => {
    const namespace = await testNamespace("abuse");
    await createPlatform(namespace, "0.0.9");
    const { url, app } = await startServerApp(namespace, {
      limits: { streamBufferBytes: 64 * 1024, streamDrainSeconds: 1 },
    });
    const token = await serviceAccountToken(namespace, "viewer");
    await grantPlatformAccess(namespace, "viewer", ["get", "list", "watch"]);
    const response = await new Promise<IncomingMessage>((resolve, reject) => {
      const request = httpRequest(`${url}/api/v1/platform/events`, {
        headers: { authorization: `Bearer ${token}` },
      });
      request.on("response", resolve).on("error", reject).end();
    });
    expect(response.statusCode).toBe(200);
    response.pause(); // a client that never reads
    response.on("error", () => {});
    // and one that reads: events larger than the bound still reach it
    const stopReading = new AbortController();
    const reader = await get(`${url}/api/v1/platform/events`, token, stopReading.signal);
    const seen: string[] = [];
    void (async () => {
      for await (const event of serverSentEvents(reader))
        if (event.event === "phase")
          seen.push(((event.data as { message?: string }).message ?? "").slice(-3));
    })().catch(() => {});
    await eventually(
      "both streams open",
      async () => app.eventStreams.size,
      (size) => size === 2,
    );

    const big = "x".repeat(256 * 1024);
    let writes = 0;
    for (; writes < 80 && app.eventStreams.size > 1; writes++)
      await writePlatformStatus(namespace, {
        phase: "Running",
        message: `${big} ${String(writes).padStart(2, "0")}`,
      });
    await eventually(
      "the slow reader dropped",
      async () => app.eventStreams.size,
      (size) => size === 1,
      30_000,
    );
    expect(app.streamLimits.slots.total).toBe(1);
    const last = ` ${String(writes - 1).padStart(2, "0")}`;
    await eventually(
      "the reader got every write",
      async () => seen.at(-1),
      (message) => message === last,
    );
    const ended = new Promise<boolean>((resolve) => response.on("close", () => resolve(response.complete)));
    response.resume();
    expect(await ended).toBe(false); // cut off, not ended after the last event
    stopReading.abort();
  });

  it("closes a stream once its token stops being valid (reviewed again at the token cache's TTL)", async () => {
    const namespace = await testNamespace("abuse");
    const counted = countedReviews();
    const { url, app } = await startServerApp(namespace, {
      reviewToken: counted.review,
      limits: { tokenCacheSeconds: 1 },
    });
    const token = await serviceAccountToken(namespace, "leaver");
    await grantRole(namespace, "leaver", "leaver-builds", [
      { apiGroups: [ImageBuildKind.group], resources: ["imagebuilds"], verbs: ["list", "watch"] },
    ]);
    const stream = await openStream(`${url}/api/v1/watch/namespaces/${namespace}/imagebuilds`, token);
    expect(stream.response.status).toBe(200);
    const reviewsOfToken = () => counted.reviewed.filter((reviewed) => reviewed === token).length;
    const opened = reviewsOfToken();
    // the second re-review has started: the first one's verdict (valid) was applied to the stream
    await eventually(
      "two re-reviews of the stream's token",
      async () => reviewsOfToken(),
      (n) => n >= opened + 2,
    );
    expect(app.eventStreams.size).toBe(1); // a valid token keeps its stream through re-reviews

    await adminConfig()
      .makeApiClient(CoreV1Api)
      .deleteNamespacedServiceAccount({ namespace, name: "leaver" });
    const ended = (async () => {
      for (let next = await stream.events?.next(); next && !next.done; next = await stream.events?.next());
      return "closed";
    })();
    const late = new Promise((resolve) => setTimeout(() => resolve("still open after 15 s"), 15_000));
    expect(await Promise.race([ended, late])).toBe("closed");
    expect(app.eventStreams.size).toBe(0);
  });
});
