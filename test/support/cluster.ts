import { randomBytes } from "node:crypto";
import { CoreV1Api, KubeConfig } from "@kubernetes/client-node";
import { expect, inject, onTestFinished } from "vitest";
import { describeObject, podsIn } from "../../src/dev/describe-object.ts";
import { describeWithLogs } from "../../src/dev/pod-logs.ts";
import { testNamespaceLabel } from "./namespace-janitor.ts";

/** A client configuration for the test run's control plane (admin credentials). */
export function adminConfig(): KubeConfig {
  const config = new KubeConfig();
  config.loadFromFile(inject("kubeconfig"));
  return config;
}

/**
 * The test file that made each namespace. A worker runs several files one after another in one module
 * graph (vitest.config.ts), so this module outlives a file: a namespace is its file's, not the worker's.
 */
const namespaceFiles = new Map<string, string>();
const currentFile = () => expect.getState().testPath ?? "";

/**
 * Whether `namespace` was made by the running test file's `testNamespace`: the files run side by side
 * on one control plane, and an operator a file starts for the whole cluster reconciles only these.
 */
export const isOwnNamespace = (namespace: string): boolean => namespaceFiles.get(namespace) === currentFile();

/**
 * A fresh namespace for the current test, deleted after it (deletion is not awaited to completion:
 * the namespace controller finishes it in the background).
 */
export async function testNamespace(prefix = "t"): Promise<string> {
  const name = `${prefix}-${randomBytes(4).toString("hex")}`;
  namespaceFiles.set(name, currentFile());
  const core = adminConfig().makeApiClient(CoreV1Api);
  await core.createNamespace({ body: { metadata: { name, labels: { [testNamespaceLabel]: "true" } } } });
  onTestFinished(async () => {
    await core.deleteNamespace({ name }).catch(() => {});
  });
  return name;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Polls `read` until `accept` holds for its result; on timeout fails with the last value seen, described
 * for a person (src/dev/describe-object.ts: phase, conditions, container states, a pod's last log lines).
 */
export async function eventually<T>(
  what: string,
  read: () => Promise<T>,
  accept: (value: T) => boolean,
  timeoutMs = 60_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: T | undefined;
  let lastError: unknown;
  while (Date.now() < deadline) {
    try {
      last = await read();
      if (accept(last)) return last;
    } catch (error) {
      lastError = error;
    }
    await sleep(200);
  }
  const seen = last === undefined ? String(lastError) : await describeLast(last);
  throw new Error(`timed out after ${timeoutMs / 1000}s waiting for ${what}; last seen:\n${seen}`);
}

/** The last value for a timeout message; a pod's logs only where there are pods and a control plane. */
async function describeLast(value: unknown): Promise<string> {
  if (podsIn(value).length === 0) return describeObject(value);
  try {
    return await describeWithLogs(adminConfig(), value);
  } catch {
    return describeObject(value);
  }
}
