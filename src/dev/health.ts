import { readFileSync } from "node:fs";
import { request } from "node:https";
import type { Pki } from "./pki.ts";

export interface Probe {
  ok: boolean;
  detail: string;
}

/** GET over plain HTTP with a short timeout; never throws. */
export async function probeHttp(url: string): Promise<Probe> {
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(2000) });
    const body = await response.text();
    return { ok: response.ok, detail: `${response.status} ${body.trim().slice(0, 200)}` };
  } catch (error) {
    return { ok: false, detail: (error as Error).message };
  }
}

/** GET over HTTPS authenticated with the admin client certificate; never throws. */
export function probeApiserver(url: string, pki: Pki): Promise<Probe> {
  return probeTls(url, { ca: pki.caCert, cert: pki.adminCert, key: pki.adminKey });
}

/** GET etcd's /health over TLS with the API server's client certificate (etcd accepts no other); never throws. */
export function probeEtcd(url: string, pki: Pki): Promise<Probe> {
  return probeTls(`${url}/health`, { ca: pki.etcdCaCert, cert: pki.etcdClientCert, key: pki.etcdClientKey });
}

/** GET over HTTPS with a client certificate (files); never throws. */
function probeTls(url: string, files: { ca: string; cert: string; key: string }): Promise<Probe> {
  return new Promise((resolve) => {
    const req = request(
      url,
      {
        ca: readFileSync(files.ca),
        cert: readFileSync(files.cert),
        key: readFileSync(files.key),
        timeout: 2000,
      },
      (response) => {
        let body = "";
        response.on("data", (chunk) => {
          body += chunk;
        });
        response.on("end", () =>
          resolve({
            ok: response.statusCode === 200,
            detail: `${response.statusCode} ${body.trim().slice(0, 200)}`,
          }),
        );
      },
    );
    req.on("timeout", () => req.destroy(new Error("timed out")));
    req.on("error", (error) => resolve({ ok: false, detail: error.message }));
    req.end();
  });
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Polls `probe` until it succeeds; fails with the last detail after `timeoutMs` (and what `explain` says
 * then, e.g. the pods' states and logs), or at once if `alive()` turns false.
 */
export async function waitFor(
  what: string,
  probe: () => Promise<Probe>,
  options: { timeoutMs: number; alive?: () => boolean; intervalMs?: number; explain?: () => Promise<string> },
): Promise<void> {
  const deadline = Date.now() + options.timeoutMs;
  let last: Probe = { ok: false, detail: "not probed" };
  while (Date.now() < deadline) {
    last = await probe();
    if (last.ok) return;
    if (options.alive && !options.alive()) throw new Error(`${what} exited (last probe: ${last.detail})`);
    await sleep(options.intervalMs ?? 200);
  }
  const explained = options.explain
    ? await options.explain().catch((error: Error) => `(${error.message})`)
    : "";
  throw new Error(
    `${what} not ready after ${options.timeoutMs / 1000}s (last probe: ${last.detail})${explained ? `\n${explained}` : ""}`,
  );
}
