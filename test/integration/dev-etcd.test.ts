/**
 * The local control plane's etcd takes only clients with a certificate of its own CA: without one
 * (plain HTTP, TLS without a client certificate, or the cluster admin's certificate) a local user
 * cannot read a Secret from it. The API server connects with its certificate (every other test).
 */
import { readFileSync } from "node:fs";
import { request } from "node:https";
import { describe, expect, inject, it } from "vitest";
import { etcdClientUrl } from "../../src/dev/components.ts";
import { readState } from "../../src/dev/state.ts";
import { externalCluster, skipFor } from "../support/allowed-skips.ts";

/** POSTs etcd's range request for every key under /registry/secrets; the status code or the connection error. */
function readSecrets(url: string, tls: { ca?: string; cert?: string; key?: string }): Promise<string> {
  const file = (path?: string) => (path ? readFileSync(path) : undefined);
  return new Promise((resolve) => {
    const key = Buffer.from("/registry/secrets/").toString("base64");
    const end = Buffer.from("/registry/secrets0").toString("base64");
    const req = request(
      `${url}/v3/kv/range`,
      { method: "POST", ca: file(tls.ca), cert: file(tls.cert), key: file(tls.key), timeout: 5000 },
      (response) => {
        response.resume();
        response.on("end", () => resolve(String(response.statusCode)));
      },
    );
    req.on("timeout", () => req.destroy(new Error("timed out")));
    req.on("error", (error) => resolve(`error: ${error.message}`));
    req.end(JSON.stringify({ key, range_end: end, keys_only: true }));
  });
}

describe("dev etcd", () => {
  it(
    "refuses clients without a certificate of its CA; takes the API server's",
    skipFor(inject("devDir") === "" ? externalCluster : ""),
    async () => {
      const state = await readState(inject("devDir"));
      if (!state) throw new Error("no dev state");
      const url = etcdClientUrl(state.ports);
      const { pki } = state;

      const plain = await fetch(`${url.replace("https:", "http:")}/v3/kv/range`, {
        method: "POST",
        body: "{}",
      }).then(
        (r) => String(r.status),
        (error: Error) => `error: ${error.message}`,
      );
      expect(plain).not.toBe("200");
      expect(await readSecrets(url, { ca: pki.etcdCaCert })).toMatch(/^error: /);
      expect(await readSecrets(url, { ca: pki.etcdCaCert, cert: pki.adminCert, key: pki.adminKey })).toMatch(
        /^error: /,
      );
      expect(
        await readSecrets(url, { ca: pki.etcdCaCert, cert: pki.etcdClientCert, key: pki.etcdClientKey }),
      ).toBe("200");
    },
  );
});
