import { KubeConfig, RequestContext } from "@kubernetes/client-node";
import { describe, expect, it } from "vitest";
import { userKubeConfig } from "../../../src/server/auth.ts";

/** The server's own configuration: an HTTPS cluster with a CA (what gives its requests a dispatcher of their own). */
function serverConfig(): KubeConfig {
  const config = new KubeConfig();
  config.loadFromOptions({
    clusters: [
      { name: "cluster", server: "https://127.0.0.1:6443", caData: Buffer.from("ca").toString("base64") },
    ],
    users: [{ name: "server", token: "server-token" }],
    contexts: [{ name: "server", cluster: "cluster", user: "server" }],
    currentContext: "server",
  });
  return config;
}

/** What a request of `config` is sent with: its dispatcher (connection pool) and Authorization header. */
async function prepared(config: KubeConfig) {
  const context = new RequestContext("https://127.0.0.1:6443/api", "GET" as never);
  await config.applySecurityAuthentication(context);
  return { dispatcher: context.getDispatcher(), authorization: context.getHeaders().Authorization };
}

describe("a caller's client (userKubeConfig)", () => {
  it("sends every request over one connection pool, each with the caller's token", async () => {
    const caller = userKubeConfig(serverConfig(), "caller-token");
    const first = await prepared(caller);
    const second = await prepared(caller);
    expect(first.dispatcher).toBeDefined();
    expect(second.dispatcher).toBe(first.dispatcher);
    expect(first.authorization).toBe("Bearer caller-token");
    expect(second.authorization).toBe("Bearer caller-token");
  });

  it("gives each caller a pool of its own", async () => {
    const one = await prepared(userKubeConfig(serverConfig(), "one"));
    const other = await prepared(userKubeConfig(serverConfig(), "other"));
    expect(other.dispatcher).not.toBe(one.dispatcher);
    expect(other.authorization).toBe("Bearer other");
  });
});
