/**
 * Failure paths: an install whose component crash-loops fails fast naming it; a running platform
 * whose component breaks on its own is Degraded.
 */
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { describe, expect, inject, it, onTestFinished } from "vitest";
import { binaryPaths } from "../../../src/dev/binaries.ts";
import { ownVersion } from "../../../src/platform/catalog.ts";
import { keptForAnnotation } from "../../../src/platform/kept-data.ts";
import { eventually, testNamespace } from "../../support/cluster.ts";
import { cli, listComponents, listObjects, readPlatform, startOperator } from "./support.ts";

const run = promisify(execFile);

describe("platform failures", () => {
  it("install exits non-zero naming the crash-looping component; a component breaking later makes it Degraded; uninstall --keep-data keeps the claims", {
    timeout: 400_000,
  }, async () => {
    const namespace = await testNamespace("platfail");
    const operator = startOperator(namespace);
    onTestFinished(() => operator.kill()); // also when the test times out
    try {
      const install = await cli(
        namespace,
        "install",
        "--dev",
        "--set",
        "components.mlflow.podAnnotations.sim\\.slipway\\.dev/outcome=crashloop",
        "--timeout",
        "10m",
      );
      expect(install.code).not.toBe(0);
      expect(install.stderr).not.toContain("timed out");
      expect(install.stderr.trim()).toMatch(
        /^error: platform slipway failed: mlflow: pod slipway-mlflow-[\w-]+: CrashLoopBackOff \(restarted 5 times\): back-off restarting failed container mlflow$/,
      );
      const failed = await readPlatform(namespace);
      expect(failed.status?.phase).toBe("Failed");
      expect(failed.status?.conditions?.find((c) => c.type === "Degraded")).toMatchObject({
        status: "True",
        reason: "Failed",
      });
      const mlflow = (await listComponents(namespace)).find((c) => c.spec.component === "mlflow");
      expect(mlflow?.status?.phase).toBe("Failed");
      expect(mlflow?.status?.conditions?.find((c) => c.type === "Ready")?.status).toBe("False");

      // Fixing the override lets the install finish.
      const fix = await cli(
        namespace,
        "patch",
        "--set",
        "components.mlflow.podAnnotations.sim\\.slipway\\.dev/outcome=ok",
        "--timeout",
        "4m",
      );
      expect(fix.stderr).toBe("");
      expect(fix.code).toBe(0);
      expect((await readPlatform(namespace)).status).toMatchObject({ phase: "Running", ready: "7/7" });

      // Something outside the operator breaks the web pods: nothing is being changed, so Degraded.
      await run(binaryPaths().kubectl, [
        "--kubeconfig",
        inject("kubeconfig"),
        "-n",
        namespace,
        "patch",
        "deployment",
        "slipway-web",
        "--type=merge",
        "-p",
        '{"spec":{"template":{"metadata":{"annotations":{"sim.slipway.dev/outcome":"crashloop"}}}}}',
      ]);
      const degraded = await eventually(
        "platform Degraded naming the failing web pods",
        () => readPlatform(namespace),
        (p) => p.status?.phase === "Degraded" && /^web: pod /.test(p.status.message ?? ""),
        120_000,
      );
      expect(degraded.status?.message).toMatch(/^web: pod slipway-web-[\w-]+: CrashLoopBackOff/);
      expect(degraded.status?.version).toBe(ownVersion);
      const status = await cli(namespace, "status");
      expect(status.code).toBe(0);
      expect(status.stdout).toMatch(/phase: +Degraded — web: pod/);

      // --keep-data: the platform goes, its claims (and the namespace) stay, no longer owned
      const uninstall = await cli(
        namespace,
        "uninstall",
        "--yes",
        "--keep-crds",
        "--keep-data",
        "--timeout",
        "3m",
      );
      expect(uninstall.stderr).toBe("");
      expect(uninstall.code).toBe(0);
      expect(uninstall.stdout).toContain("kept 4 volume claim(s) and their data, 3 credential Secret(s)");
      expect(await listComponents(namespace)).toEqual([]);
      const claims = await listObjects(namespace, "v1", "PersistentVolumeClaim");
      expect(claims).toHaveLength(4);
      expect(
        claims.every((c) => !c.metadata?.deletionTimestamp && !c.metadata?.ownerReferences?.length),
      ).toBe(true);
      expect(new Set(claims.map((c) => c.metadata?.annotations?.[keptForAnnotation]))).toEqual(
        new Set(["slipway"]),
      );
    } finally {
      await operator.kill();
    }
  });
});
