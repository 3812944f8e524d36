import { createHook } from "node:async_hooks";
import { describe, expect, it, onTestFinished } from "vitest";
import { ImageBuildKind } from "../../../src/apis/builds/imagebuild.ts";
import { testNamespace } from "../../support/cluster.ts";
import { installCrds } from "../../support/crds.ts";
import { grantRole } from "../../support/service-account.ts";
import { serviceAccountToken, startServer } from "./server.ts";

/**
 * Counts the TLS connections this process opens (the API server is its only TLS peer while counting:
 * the test reaches the server over plain HTTP), whichever client opens them — the Kubernetes
 * library's undici pool or the lean node:https client (src/kube/rest.ts) — by their new TLSWRAP handles.
 */
function countApiServerConnections(): { opened: () => number } {
  let opened = 0;
  const hook = createHook({
    init(_id, type, _trigger, resource) {
      // a keep-alive socket handed to its next request is announced again, as a ReusedHandle
      if (type === "TLSWRAP" && (resource as object).constructor.name !== "ReusedHandle") opened++;
    },
  }).enable();
  onTestFinished(() => {
    hook.disable();
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
