/**
 * `slipway uninstall` deletes the install namespace only when `slipway install` created it (the
 * label it sets then): `-n default` and a namespace someone else made are left in place.
 */
import { randomBytes } from "node:crypto";
import { CoreV1Api } from "@kubernetes/client-node";
import { describe, expect, inject, it, onTestFinished } from "vitest";
import { createdByInstallLabel } from "../../../src/cli/platform/install-namespace.ts";
import { slipway } from "../../support/cli.ts";
import { adminConfig, testNamespace } from "../../support/cluster.ts";

const cli = (namespace: string, ...args: string[]) =>
  slipway([...args, "--kubeconfig", inject("kubeconfig"), "-n", namespace]);

const core = () => adminConfig().makeApiClient(CoreV1Api);
const namespaceNames = async () => (await core().listNamespace()).items.map((n) => n.metadata?.name);

/**
 * `uninstall --keep-crds`, waiting up to 180 s for the namespace it removes: the shared plane's
 * namespace controller deletes every file's namespaces, and under a full run's load that took over a
 * minute (as in uninstall-crds).
 */
const uninstallKeepingCrds = (namespace: string) =>
  cli(namespace, "uninstall", "--yes", "--keep-crds", "--timeout", "180s");

/** `install --dev --no-wait` (CRDs, the api-server's binding, the Platform; no operator) then `uninstall`. */
async function installThenUninstall(namespace: string) {
  const install = await cli(namespace, "install", "--dev", "--no-wait");
  expect(install.code, install.stderr).toBe(0);
  const uninstall = await uninstallKeepingCrds(namespace);
  expect(uninstall.code, uninstall.stderr).toBe(0);
  return uninstall.stdout;
}

describe("uninstall and the install namespace", { timeout: 300_000 }, () => {
  it("leaves `default`: install did not create it", async () => {
    const output = await installThenUninstall("default");
    expect(output).toContain("left namespace default: slipway install did not create it");
    expect(await namespaceNames()).toContain("default");
    const labels = (await core().readNamespace({ name: "default" })).metadata?.labels ?? {};
    expect(labels[createdByInstallLabel]).toBeUndefined();
  });

  it("leaves a namespace that existed before the install", async () => {
    const namespace = await testNamespace("own");
    const output = await installThenUninstall(namespace);
    expect(output).toContain(`left namespace ${namespace}`);
    const live = await core().readNamespace({ name: namespace });
    expect(live.status?.phase).toBe("Active");
  });

  it("deletes the namespace install created (and labelled)", async () => {
    const namespace = `fresh-${randomBytes(4).toString("hex")}`;
    onTestFinished(() =>
      core()
        .deleteNamespace({ name: namespace })
        .then(
          () => undefined,
          () => undefined,
        ),
    );
    const install = await cli(namespace, "install", "--dev", "--no-wait");
    expect(install.code, install.stderr).toBe(0);
    const labels = (await core().readNamespace({ name: namespace })).metadata?.labels ?? {};
    expect(labels[createdByInstallLabel]).toBe("true");
    const uninstall = await uninstallKeepingCrds(namespace);
    expect(uninstall.code, uninstall.stderr).toBe(0);
    expect(uninstall.stdout).toContain(`removed namespace ${namespace}`);
    expect(await namespaceNames()).not.toContain(namespace);
  });
});
