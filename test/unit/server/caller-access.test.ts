import type https from "node:https";
import { KubeConfig, RequestContext } from "@kubernetes/client-node";
import { describe, expect, it } from "vitest";
import { callerAccess } from "../../../src/server/auth.ts";
import { userKubeConfig } from "../../support/fakes/user-kubeconfig.ts";

const certData = Buffer.from("server-cert").toString("base64");
const keyData = Buffer.from("server-key").toString("base64");

/** The server's own configuration: an HTTPS cluster with a CA, and a token and a client certificate of its own. */
function serverConfig(): KubeConfig {
  const config = new KubeConfig();
  config.loadFromOptions({
    clusters: [
      { name: "cluster", server: "https://127.0.0.1:6443", caData: Buffer.from("ca").toString("base64") },
    ],
    users: [{ name: "server", token: "server-token", certData, keyData }],
    contexts: [{ name: "server", cluster: "cluster", user: "server" }],
    currentContext: "server",
  });
  return config;
}

describe("a caller's access (callerAccess): the server's cluster, the caller's token only", () => {
  it("sends the caller's token, the server's CA, and neither the server's token nor its certificate", async () => {
    const options: https.RequestOptions = {};
    const caller = callerAccess(serverConfig(), "caller-token");
    await caller.applyToHTTPSOptions(options);
    expect(caller.getCurrentCluster()?.server).toBe("https://127.0.0.1:6443");
    expect((options.headers as Record<string, string>).Authorization).toBe("Bearer caller-token");
    expect(String(options.ca)).toBe("ca");
    expect(options.cert).toBeUndefined();
    expect(options.key).toBeUndefined();
  });
});

/** What a request of `config` is sent with: its dispatcher (connection pool) and Authorization header. */
async function prepared(config: KubeConfig) {
  const context = new RequestContext("https://127.0.0.1:6443/api", "GET" as never);
  await config.applySecurityAuthentication(context);
  return { dispatcher: context.getDispatcher(), authorization: context.getHeaders().Authorization };
}

describe("the tests' and the server bench's user client (userKubeConfig)", () => {
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
