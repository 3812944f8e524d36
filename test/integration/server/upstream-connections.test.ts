import { subscribe, unsubscribe } from "node:diagnostics_channel";
import { describe, expect, it, onTestFinished } from "vitest";
import { ImageBuildKind } from "../../../src/apis/builds/imagebuild.ts";
import { adminConfig, testNamespace } from "../../support/cluster.ts";
import { installCrds } from "../../support/crds.ts";
import { grantRole } from "../../support/service-account.ts";
import { serviceAccountToken, startServer } from "./server.ts";

/** Counts the connections this process opens to the API server (undici announces each on a diagnostics channel). */
function countApiServerConnections(): { opened: () => number } {
  const port = new URL(adminConfig().getCurrentCluster()?.server ?? "").port;
  let opened = 0;
  const onConnected = (message: unknown) => {
    if (String((message as { connectParams: { port: unknown } }).connectParams.port) === port) opened++;
  };
  subscribe("undici:client:connected", onConnected);
  onTestFinished(() => {
    unsubscribe("undici:client:connected", onConnected);
  });
  return { opened: () => opened };
}

describe("the server's connections to the API server", () => {
  it("a caller's requests share connections (one new TLS connection per request before)", async () => {
    await installCrds([ImageBuildKind]);
    const namespace = await testNamespace("upstream");
    const token = await serviceAccountToken(namespace, "scientist");
    await grantRole(namespace, "scientist", "scientist-builds", [
      { apiGroups: [ImageBuildKind.group], resources: ["imagebuilds"], verbs: ["list"] },
    ]);
    const url = await startServer(namespace);
    const connections = countApiServerConnections();
    for (let i = 0; i < 20; i++) {
      const response = await fetch(`${url}/api/v1/namespaces/${namespace}/imagebuilds`, {
        headers: { authorization: `Bearer ${token}` },
      });
      expect(response.status).toBe(200);
    }
    // one for the TokenReview (the server's own identity), one the caller's requests share
    expect(connections.opened()).toBeLessThanOrEqual(2);
    expect(connections.opened()).toBeGreaterThan(0); // the count sees the server's connections at all
  });

  it("keeps them across the token's reviews (a new client and a new connection per review before)", async () => {
    await installCrds([ImageBuildKind]);
    const namespace = await testNamespace("upstream");
    const token = await serviceAccountToken(namespace, "scientist");
    await grantRole(namespace, "scientist", "scientist-builds", [
      { apiGroups: [ImageBuildKind.group], resources: ["imagebuilds"], verbs: ["list"] },
    ]);
    let now = Date.now();
    const url = await startServer(namespace, { limits: { tokenCacheSeconds: 1 }, now: () => now });
    const connections = countApiServerConnections();
    for (let i = 0; i < 3; i++) {
      if (i > 0) now += 1_200; // the review expired
      const response = await fetch(`${url}/api/v1/namespaces/${namespace}/imagebuilds`, {
        headers: { authorization: `Bearer ${token}` },
      });
      expect(response.status).toBe(200);
    }
    // three reviews over the server's one pool, three requests over the caller's
    expect(connections.opened()).toBeLessThanOrEqual(2);
    expect(connections.opened()).toBeGreaterThan(0);
  });
});
