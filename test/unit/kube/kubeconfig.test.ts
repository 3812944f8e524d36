import { mkdtemp, rm, writeFile } from "node:fs/promises";
import type https from "node:https";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { KubeConfig } from "@kubernetes/client-node";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import {
  type ClusterAccess,
  contextCredentials,
  inClusterCredentials,
  KubeconfigAccess,
  kubeconfigSource,
  loadClusterAccess,
} from "../../../src/kube/kubeconfig.ts";

const b64 = (text: string) => Buffer.from(text).toString("base64");
let dir: string;

/** A kubeconfig with two contexts: certificates (inline CA, files relative to the kubeconfig) and a token user. */
const kubeconfigYaml = `apiVersion: v1
kind: Config
clusters:
  - name: main
    cluster:
      server: https://127.0.0.1:6443/
      certificate-authority-data: ${b64("the-ca")}
      tls-server-name: api.internal
  - name: lab
    cluster:
      server: https://10.0.0.1:443
      insecure-skip-tls-verify: true
users:
  - name: admin
    user:
      client-certificate: certs/admin.crt
      client-key: certs/admin.key
      as: someone
  - name: robot
    user:
      token: robot-token
  - name: basic
    user:
      username: ann
      password: secret-pw
contexts:
  - name: admin@main
    context: { cluster: main, user: admin }
  - name: robot@lab
    context: { cluster: lab, user: robot }
  - name: basic@lab
    context: { cluster: lab, user: basic }
current-context: admin@main
`;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "slipway-kubeconfig-"));
  await writeFile(join(dir, "config"), kubeconfigYaml);
  await import("node:fs/promises").then((fs) => fs.mkdir(join(dir, "certs")));
  await writeFile(join(dir, "certs/admin.crt"), "the-cert");
  await writeFile(join(dir, "certs/admin.key"), "the-key");
});
afterAll(() => rm(dir, { recursive: true, force: true }));

async function httpsOptions(access: ClusterAccess) {
  const options: https.RequestOptions = {};
  await access.applyToHTTPSOptions(options);
  return {
    server: access.getCurrentCluster()?.server,
    ca: options.ca?.toString(),
    cert: options.cert?.toString(),
    key: options.key?.toString(),
    auth: options.auth,
    rejectUnauthorized: options.rejectUnauthorized,
    servername: options.servername,
    authorization: (options.headers as Record<string, string> | undefined)?.Authorization,
    impersonate: (options.headers as Record<string, string> | undefined)?.["Impersonate-User"],
  };
}

function clientNode(context: string): KubeConfig {
  const config = new KubeConfig();
  config.loadFromFile(join(dir, "config"));
  config.setCurrentContext(context);
  return config;
}

describe("loadClusterAccess", () => {
  test.each(["admin@main", "robot@lab", "basic@lab"])(
    "gives the same server, TLS material and auth as client-node's KubeConfig (%s)",
    async (context) => {
      const light = await loadClusterAccess({ kubeconfig: join(dir, "config"), context });
      expect(light).toBeInstanceOf(KubeconfigAccess);
      const ours = await httpsOptions(light);
      expect(ours).toEqual(await httpsOptions(clientNode(context)));
      expect(ours.server).toMatch(/^https:\/\//);
    },
  );

  test("reads the current-context without --context: certificates from files next to the kubeconfig", async () => {
    const figures = await httpsOptions(await loadClusterAccess({ kubeconfig: join(dir, "config") }));
    expect(figures).toMatchObject({
      server: "https://127.0.0.1:6443",
      ca: "the-ca",
      cert: "the-cert",
      key: "the-key",
      servername: "api.internal",
      impersonate: "someone",
    });
  });

  test("a context with an exec plugin is loaded by client-node's KubeConfig", async () => {
    const file = join(dir, "exec-config");
    await writeFile(
      file,
      JSON.stringify({
        clusters: [{ name: "c", cluster: { server: "https://127.0.0.1:1" } }],
        users: [
          {
            name: "u",
            user: { exec: { command: "get-token", apiVersion: "client.authentication.k8s.io/v1" } },
          },
        ],
        contexts: [{ name: "x", context: { cluster: "c", user: "u" } }],
        "current-context": "x",
      }),
    );
    expect(await loadClusterAccess({ kubeconfig: file })).toBeInstanceOf(KubeConfig);
  });

  test("errors name the file and the field", async () => {
    const file = join(dir, "config");
    await expect(loadClusterAccess({ kubeconfig: file, context: "nope" })).rejects.toThrow(
      `kubeconfig ${file}: --context names context "nope", which is not in contexts`,
    );
    await expect(loadClusterAccess({ kubeconfig: join(dir, "absent") })).rejects.toThrow(/absent: ENOENT/);
  });
});

describe("contextCredentials", () => {
  const document = (cluster: object, user: object = {}) => ({
    clusters: [{ name: "c", cluster }],
    users: [{ name: "u", user }],
    contexts: [{ name: "x", context: { cluster: "c", user: "u" } }],
    "current-context": "x",
  });

  test("a cluster without server, a missing cluster and no current-context are refused by name", () => {
    expect(() => contextCredentials(document({}), "/")).toThrow('clusters "c": cluster.server is missing');
    expect(() => contextCredentials({ ...document({}), clusters: [] }, "/")).toThrow(
      'contexts "x" names cluster "c", which is not in clusters',
    );
    expect(() => contextCredentials({ ...document({}), "current-context": "" }, "/")).toThrow(
      "names no current-context",
    );
  });

  test("exec, auth-provider and proxy-url need client-node", () => {
    const server = { server: "https://h" };
    expect(contextCredentials(document(server, { exec: {} }), "/")).toEqual({
      needsClientNode: "users[].user.exec",
    });
    expect(contextCredentials(document(server, { "auth-provider": { name: "gcp" } }), "/")).toEqual({
      needsClientNode: "users[].user.auth-provider",
    });
    expect(contextCredentials(document({ ...server, "proxy-url": "http://p" }), "/")).toEqual({
      needsClientNode: "clusters[].cluster.proxy-url",
    });
  });
});

describe("in-cluster credentials", () => {
  test("the service address (IPv6 in brackets), the account's CA, and the token re-read on every use", async () => {
    const account = join(dir, "account");
    await import("node:fs/promises").then((fs) => fs.mkdir(account));
    await writeFile(join(account, "ca.crt"), "cluster-ca");
    await writeFile(join(account, "token"), "first\n");
    const env = { KUBERNETES_SERVICE_HOST: "fd00::1", KUBERNETES_SERVICE_PORT: "443" };
    const access = new KubeconfigAccess(inClusterCredentials(env, account));
    expect(await httpsOptions(access)).toMatchObject({
      server: "https://[fd00::1]:443",
      ca: "cluster-ca",
      authorization: "Bearer first",
    });
    await writeFile(join(account, "token"), "rotated\n");
    expect((await httpsOptions(access)).authorization).toBe("Bearer rotated");
    expect(() => inClusterCredentials({}, account)).toThrow("KUBERNETES_SERVICE_HOST");
  });
});

describe("kubeconfigSource", () => {
  const none = () => false;
  test("flag, then $KUBECONFIG (several files: client-node merges them), then ~/.kube/config, then in-cluster", () => {
    expect(kubeconfigSource("/f", { KUBECONFIG: "/k" }, none)).toEqual({ file: "/f" });
    expect(kubeconfigSource(undefined, { KUBECONFIG: "/k" }, none)).toEqual({ file: "/k" });
    expect(kubeconfigSource(undefined, { KUBECONFIG: "/a:/b" }, none)).toEqual({ files: ["/a", "/b"] });
    expect(kubeconfigSource(undefined, {}, (p) => p === "/home/x/.kube/config", "/home/x")).toEqual({
      file: "/home/x/.kube/config",
    });
    expect(kubeconfigSource(undefined, {}, (p) => p === "/sa/token", "/home/x", "/sa")).toEqual({
      inCluster: true,
    });
    expect(() => kubeconfigSource(undefined, {}, none, "/home/x", "/sa")).toThrow(
      "no kubeconfig: no --kubeconfig, $KUBECONFIG, /home/x/.kube/config or in-cluster token (/sa/token)",
    );
  });
});
