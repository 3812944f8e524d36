import { expect, onTestFinished, test } from "vitest";
import { RestClient } from "../../../src/kube/rest.ts";
import { adminConfig, testNamespace } from "../../support/cluster.ts";

/** A client limited to `qps` with a burst of 2, the time each request waited for a token, and a path to read. */
async function limitedClient(prefix: string, qps: number) {
  const path = `/api/v1/namespaces/${await testNamespace(prefix)}/configmaps`;
  const waits: number[] = [];
  const rest = new RestClient(adminConfig(), {
    rateLimit: { qps, burst: 2 },
    onRateLimiterWait: (waitedMs) => waits.push(waitedMs),
  });
  onTestFinished(() => rest.close());
  return { path, waits, rest };
}

test("the REST client's bucket: a burst goes at once, the rest wait their turn; a watch takes no token", async () => {
  const { path, waits, rest } = await limitedClient("qps", 5);
  const watching = new AbortController();
  onTestFinished(() => watching.abort());
  const watch = rest.watch(path, {}, () => {}, watching.signal).catch(() => {});
  const answers = await Promise.all(
    Array.from({ length: 4 }, () => rest.request<{ items: unknown[] }>("GET", path)),
  );
  expect(answers.every((answer) => Array.isArray(answer.items))).toBe(true);
  expect(waits).toHaveLength(4);
  expect(waits.slice(0, 2)).toEqual([0, 0]);
  expect(waits[2]).toBeGreaterThan(0);
  expect(waits[3]).toBeGreaterThan(waits[2] ?? 0);
  watching.abort();
  await watch;
});

test("a client with its own connections (withOwnConnections) takes its tokens from the same bucket", async () => {
  const { path, waits, rest } = await limitedClient("qps-own", 1);
  const own = rest.withOwnConnections();
  onTestFinished(() => own.close());
  await Promise.all([rest.request("GET", path), rest.request("GET", path)]);
  await own.request("GET", path);
  expect(waits.slice(0, 2)).toEqual([0, 0]);
  expect(waits[2]).toBeGreaterThan(0);
});
