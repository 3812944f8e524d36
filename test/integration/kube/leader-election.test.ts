import { type ChildProcess, spawn } from "node:child_process";
import { join } from "node:path";
import { CoordinationV1Api } from "@kubernetes/client-node";
import { expect, inject, onTestFinished, test } from "vitest";
import { packageRoot } from "../../../src/dev/paths.ts";
import { slipway } from "../../support/cli.ts";
import { adminConfig, eventually, testNamespace } from "../../support/cluster.ts";

interface Operator {
  process: ChildProcess;
  metricsPort: Promise<number>;
}

/** Starts `bin/slipway operator` campaigning for a Lease in `namespace`; it reports its metrics port in its JSON log. */
function startOperator(namespace: string): Operator {
  const child = spawn(
    join(packageRoot, "bin/slipway"),
    [
      "operator",
      "--kubeconfig",
      inject("kubeconfig"),
      "--namespace",
      namespace,
      "--lease-namespace",
      namespace,
      "--metrics-port",
      "0",
      "--health-port",
      "0",
    ],
    { stdio: ["ignore", "pipe", "inherit"] },
  );
  onTestFinished(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  });
  const metricsPort = new Promise<number>((resolve, reject) => {
    let buffered = "";
    child.stdout?.on("data", (chunk: Buffer) => {
      buffered += chunk.toString();
      for (const line of buffered.split("\n")) {
        const port = line.includes("operations endpoints listening")
          ? JSON.parse(line).ports?.metrics
          : undefined;
        if (port) resolve(port);
      }
      buffered = buffered.slice(buffered.lastIndexOf("\n") + 1);
    });
    child.once("exit", (code) => reject(new Error(`operator exited with ${code} before listening`)));
  });
  return { process: child, metricsPort };
}

async function isLeader(operator: Operator): Promise<boolean> {
  const text = await (await fetch(`http://127.0.0.1:${await operator.metricsPort}/metrics`)).text();
  return /^leader_election_master_status\{[^}]*\} 1$/m.test(text);
}

const leaseDurationMs = 15_000;

test("two operators: exactly one leads; when it is SIGKILLed the other takes over once the lease has expired", async () => {
  const namespace = await testNamespace("le");
  const operators = [startOperator(namespace), startOperator(namespace)];
  const leases = adminConfig().makeApiClient(CoordinationV1Api);
  const lease = await eventually(
    "a leader",
    () => leases.readNamespacedLease({ name: "slipway-operator", namespace }),
    (l) => Boolean(l.spec?.holderIdentity),
    30_000,
  );
  const holderPid = Number(lease.spec?.holderIdentity?.split("_")[1]);
  const leader = operators.find((o) => o.process.pid === holderPid);
  const follower = operators.find((o) => o.process.pid !== holderPid);
  if (!leader || !follower) throw new Error(`lease holder ${lease.spec?.holderIdentity} is neither operator`);
  await eventually(
    "the leader reports leading",
    () => isLeader(leader),
    (leading) => leading,
    10_000,
  );
  expect(await isLeader(follower)).toBe(false);

  leader.process.kill("SIGKILL");
  // the leader's last renewal, as the Lease holds it once the leader is gone
  const last = await leases.readNamespacedLease({ name: "slipway-operator", namespace });
  const taken = await eventually(
    "the follower takes over",
    () => leases.readNamespacedLease({ name: "slipway-operator", namespace }),
    (l) => l.spec?.holderIdentity?.split("_")[1] === String(follower.process.pid),
    // a bound on the wait, not a claim about speed: the lease's own times say when it was taken
    4 * leaseDurationMs,
  );
  // taken only once the lease had expired: no earlier than a lease duration after the leader's last renewal
  const renewed = Date.parse(String(last.spec?.renewTime));
  const acquired = Date.parse(String(taken.spec?.acquireTime));
  expect(last.spec?.leaseDurationSeconds).toBe(leaseDurationMs / 1000);
  expect(acquired - renewed).toBeGreaterThanOrEqual(leaseDurationMs);
  expect(taken.spec?.leaseTransitions).toBe((lease.spec?.leaseTransitions ?? 0) + 1);
  await eventually(
    "the follower reports leading",
    () => isLeader(follower),
    (leading) => leading,
    5_000,
  );

  // SIGTERM: a clean stop releases the lease (holderIdentity cleared) and exits 0
  const exited = new Promise<number | null>((resolve) => follower.process.once("exit", resolve));
  follower.process.kill("SIGTERM");
  expect(await exited).toBe(0);
  const released = await leases.readNamespacedLease({ name: "slipway-operator", namespace });
  expect(released.spec?.holderIdentity ?? "").toBe("");
});

test("a bad operator flag exits non-zero with one readable line", async () => {
  const result = await slipway(["operator", "--metrics-port", "http"]);
  expect(result.code).toBe(1);
  expect(result.stderr.trim()).toBe("error: --metrics-port must be a port number (0-65535), not http");
});
