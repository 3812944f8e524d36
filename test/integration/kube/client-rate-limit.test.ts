import { expect, onTestFinished, test } from "vitest";
import { RestClient } from "../../../src/kube/rest.ts";
import { adminConfig, testNamespace } from "../../support/cluster.ts";

test("the REST client's bucket: a burst goes at once, the rest wait their turn; a watch takes no token", async () => {
  const namespace = await testNamespace("qps");
  const waits: number[] = [];
  const rest = new RestClient(adminConfig(), {
    rateLimit: { qps: 5, burst: 2 },
    onRateLimiterWait: (waitedMs) => waits.push(waitedMs),
  });
  const watching = new AbortController();
  onTestFinished(() => {
    watching.abort();
    rest.close();
  });
  const watch = rest
    .watch(`/api/v1/namespaces/${namespace}/configmaps`, {}, () => {}, watching.signal)
    .catch(() => {});
  const path = `/api/v1/namespaces/${namespace}/configmaps`;
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
  const namespace = await testNamespace("qps-own");
  const waits: number[] = [];
  const rest = new RestClient(adminConfig(), {
    rateLimit: { qps: 1, burst: 2 },
    onRateLimiterWait: (waitedMs) => waits.push(waitedMs),
  });
  const own = rest.withOwnConnections();
  onTestFinished(() => {
    rest.close();
    own.close();
  });
  const path = `/api/v1/namespaces/${namespace}/configmaps`;
  await Promise.all([rest.request("GET", path), rest.request("GET", path)]);
  await own.request("GET", path);
  expect(waits.slice(0, 2)).toEqual([0, 0]);
  expect(waits[2]).toBeGreaterThan(0);
});
