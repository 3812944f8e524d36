/** Helpers of the platform end-to-end tests: an operator process per test namespace, and reads of what it made. */
import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { join } from "node:path";
import {
  CoreV1Api,
  CustomObjectsApi,
  type KubernetesObject,
  KubernetesObjectApi,
} from "@kubernetes/client-node";
import { inject } from "vitest";
import type { ComponentResource } from "../../../src/apis/platform/component.ts";
import type { PlatformResource } from "../../../src/apis/platform/platform.ts";
import { packageRoot } from "../../../src/dev/paths.ts";
import { type CliResult, slipway } from "../../support/cli.ts";
import { adminConfig } from "../../support/cluster.ts";
import { testNamespaceLabel } from "../../support/namespace-janitor.ts";

export interface OperatorProcess {
  child: ChildProcess;
  output: () => string;
  /** Resolves once the process has exited. */
  exited: Promise<void>;
  /** SIGKILLs it (if still running) and waits for the exit. */
  kill: () => Promise<void>;
}

/**
 * Starts `bin/slipway operator` watching only `namespace` (the caller kills it); `lean` runs only the
 * platform controllers (platform-operator.ts), which starts faster. `kubeconfig`: another control
 * plane than the shared test one.
 */
export function startOperator(
  namespace: string,
  options: { lean?: boolean; kubeconfig?: string } = {},
): OperatorProcess {
  const kubeconfig = options.kubeconfig ?? inject("kubeconfig");
  const child = options.lean
    ? spawn(
        join(packageRoot, "node_modules/node/bin/node"),
        [join(packageRoot, "test/e2e/platform/platform-operator.ts"), kubeconfig, namespace],
        { stdio: ["ignore", "pipe", "pipe"] },
      )
    : spawn(
        join(packageRoot, "bin/slipway"),
        [
          "operator",
          "--kubeconfig",
          kubeconfig,
          "--namespace",
          namespace,
          "--no-leader-elect",
          "--metrics-port",
          "0",
          "--health-port",
          "0",
        ],
        { stdio: ["ignore", "pipe", "pipe"] },
      );
  let output = "";
  child.stdout?.on("data", (chunk) => {
    output = (output + chunk).slice(-20_000);
  });
  child.stderr?.on("data", (chunk) => {
    output = (output + chunk).slice(-20_000);
  });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const kill = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
    await exited;
  };
  return { child, output: () => output, exited, kill };
}

/** A namespace for a whole describe block (testNamespace() is per test); deleted by the returned function. */
export async function suiteNamespace(prefix: string): Promise<{ name: string; remove: () => Promise<void> }> {
  const name = `${prefix}-${randomBytes(4).toString("hex")}`;
  const core = adminConfig().makeApiClient(CoreV1Api);
  await core.createNamespace({ body: { metadata: { name, labels: { [testNamespaceLabel]: "true" } } } });
  return { name, remove: async () => void (await core.deleteNamespace({ name }).catch(() => {})) };
}

/** Runs the CLI against the test control plane, in `namespace`. */
export function cli(namespace: string, ...args: string[]): Promise<CliResult> {
  return cliOn(inject("kubeconfig"), namespace, ...args);
}

/** Runs the CLI against the control plane of `kubeconfig`, in `namespace`. */
export function cliOn(kubeconfig: string, namespace: string, ...args: string[]): Promise<CliResult> {
  return slipway([...args, "--kubeconfig", kubeconfig, "-n", namespace], {}, 600_000);
}

/** The port of the operator's health endpoints (and its extra routes), from its startup log line. */
export async function operatorHealthPort(operator: OperatorProcess): Promise<number> {
  for (let waited = 0; waited < 60_000; waited += 100) {
    const line = operator
      .output()
      .split("\n")
      .find((l) => l.includes("operations endpoints listening"));
    if (line) return (JSON.parse(line) as { ports: { health: number } }).ports.health;
    if (operator.child.exitCode !== null) break;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`the operator did not report its ports:\n${operator.output()}`);
}

const group = "platform.slipway.dev";
const version = "v1beta1";

export async function readPlatform(namespace: string, name = "slipway"): Promise<PlatformResource> {
  const api = adminConfig().makeApiClient(CustomObjectsApi);
  return (await api.getNamespacedCustomObject({
    group,
    version,
    namespace,
    plural: "platforms",
    name,
  })) as PlatformResource;
}

export async function listComponents(namespace: string): Promise<ComponentResource[]> {
  const api = adminConfig().makeApiClient(CustomObjectsApi);
  const list = (await api.listNamespacedCustomObject({
    group,
    version,
    namespace,
    plural: "components",
  })) as {
    items: ComponentResource[];
  };
  return list.items;
}

/** Every object of `kind` in the namespace. */
export async function listObjects<T extends KubernetesObject>(
  namespace: string,
  apiVersion: string,
  kind: string,
): Promise<T[]> {
  const api = KubernetesObjectApi.makeApiClient(adminConfig());
  return (await api.list<T>(apiVersion, kind, namespace)).items;
}

/** The workload kinds, Services, Ingresses and claims a platform's Components own. */
export const ownedKinds = [
  ["apps/v1", "Deployment"],
  ["apps/v1", "StatefulSet"],
  ["v1", "Service"],
  ["networking.k8s.io/v1", "Ingress"],
  ["v1", "PersistentVolumeClaim"],
] as const;
