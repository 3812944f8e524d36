import {
  CustomObjectsApi,
  PatchStrategy,
  setHeaderOptions,
  type V1StatefulSet,
  type V1StatefulSetSpec,
} from "@kubernetes/client-node";
import pino from "pino";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from "vitest";
import { ProviderKind } from "../../../src/apis/pipelines/provider.ts";
import { ComponentKind, type ComponentResource } from "../../../src/apis/platform/component.ts";
import { PlatformKind, type PlatformResource } from "../../../src/apis/platform/platform.ts";
import { KubeClient } from "../../../src/kube/client.ts";
import { ResourceTypes } from "../../../src/kube/discovery.ts";
import { resourcePath } from "../../../src/kube/keys.ts";
import { Manager } from "../../../src/kube/manager.ts";
import { RestClient } from "../../../src/kube/rest.ts";
import type { KubeObject } from "../../../src/kube/types.ts";
import { findRelease } from "../../../src/platform/catalog.ts";
import { annotations } from "../../../src/platform/component-objects.ts";
import { platformControllers } from "../../../src/platform/controllers.ts";
import { operatorFieldManager } from "../../../src/platform/names.ts";
import { types } from "../../../src/platform/resource-types.ts";
import { renderUpdate } from "../../../src/platform/update-preview.ts";
import {
  createPlatform,
  grantPlatformAccess,
  readPlatformAsAdmin,
  serviceAccountToken,
  startServer,
  updatePreviewerRules,
} from "../../integration/server/server.ts";
import { adminConfig, eventually, testNamespace } from "../../support/cluster.ts";
import { installCrds } from "../../support/crds.ts";
import { grantRole } from "../../support/service-account.ts";
import { buildWebUi, launchChromium, screenshot, signedInPage } from "./browser.ts";

const components = ["postgres", "object-store", "registry", "mlflow", "workflow-engine", "api-server", "web"];

/** The operator's platform controllers, in this process, for one namespace (as `slipway operator --namespace`). */
async function startPlatformControllers(namespace: string): Promise<Manager> {
  const manager = new Manager({
    kubeConfig: adminConfig(),
    namespace,
    fieldManager: "slipway-operator",
    leaderElection: false,
    log: pino({ level: "warn" }),
  });
  for (const controller of platformControllers()) manager.add(controller);
  await manager.start();
  onTestFinished(() => manager.stop());
  return manager;
}

describe("web UI (headless Chromium)", () => {
  let browser: Browser;
  let webRoot: string;

  beforeAll(async () => {
    // the platform controller makes the Platform's pipeline Provider (pipelines.slipway.dev)
    await installCrds([PlatformKind, ComponentKind, ProviderKind]);
    webRoot = await buildWebUi();
    browser = await launchChromium();
  });
  afterAll(() => browser?.close());

  /** A namespace with the platform controllers, a Platform Running at 0.0.9, a server, and a signed-in page. */
  async function runningPlatformAndSignedInPage(): Promise<{
    namespace: string;
    page: Page;
    controllers: Manager;
  }> {
    const namespace = await testNamespace("ui");
    const controllers = await startPlatformControllers(namespace);
    await createPlatform(namespace, "0.0.9");
    await eventually(
      "the platform controller installs 0.0.9",
      () => readPlatformAsAdmin(namespace),
      (platform) => platform.status?.phase === "Running" && platform.status.version === "0.0.9",
      90_000,
    );
    const url = await startServer(namespace, { webRoot });
    const token = await serviceAccountToken(namespace, "platform-admin");
    await grantPlatformAccess(namespace, "platform-admin", ["get", "list", "watch", "patch"]);
    const page = await signedInPage(browser, url, token, 1200);
    await page.getByRole("heading", { name: `${namespace}/slipway` }).waitFor();
    return { namespace, page, controllers };
  }

  async function startUpdateTo(page: Page, version: string): Promise<void> {
    await page.getByRole("link", { name: "Update" }).click();
    await page.getByRole("radio", { name: new RegExp(version.replaceAll(".", "\\.")) }).check();
    await page.getByRole("button", { name: `Update to ${version}` }).click();
    await page
      .getByText(/Platform Updating/)
      .first()
      .waitFor();
  }

  it("refuses a bad token, then signs in, shows the live Overview, and follows an update to Running at the new version", async () => {
    const { namespace, page } = await runningPlatformAndSignedInPage();
    await page.getByText("Live", { exact: true }).waitFor();
    const rows = page.locator("table.components tbody tr");
    await expect.poll(() => rows.count()).toBe(components.length);
    expect(await page.getByTestId("version").textContent()).toBe("0.0.9");
    await screenshot(page, "overview");

    await page.getByRole("button", { name: "Sign out" }).click();
    await page.getByLabel("Bearer token").fill("not-a-token");
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("alert").filter({ hasText: "Kubernetes does not accept this token" }).waitFor();
    await screenshot(page, "login");
    expect(await page.evaluate(() => sessionStorage.length)).toBe(0);
    const token = await serviceAccountToken(namespace, "second-user");
    await grantPlatformAccess(namespace, "second-user", ["get", "list", "watch", "patch"]);
    await page.getByLabel("Bearer token").fill(token);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("heading", { name: `${namespace}/slipway` }).waitFor();

    await page.getByRole("link", { name: "Update" }).click();
    await page.getByRole("group", { name: "Available versions" }).waitFor();
    expect(await page.getByRole("radio", { name: /0\.0\.9/ }).isDisabled()).toBe(true);
    await page.getByRole("radio", { name: /0\.1\.0/ }).check();
    await screenshot(page, "update-choose");

    // a preview is a dry run as the caller: refused without the rights of the writes it stands for
    await page.getByRole("button", { name: "Preview changes" }).click();
    await page.getByRole("alert").filter({ hasText: "You may not preview this update" }).waitFor();
    await grantRole(namespace, "second-user", "second-user-preview", updatePreviewerRules);
    await page.getByRole("button", { name: "Preview changes" }).click();
    const webChanges = page.getByRole("list", { name: "Changes to web" });
    await webChanges.getByText(`~ Deployment ${namespace}/slipway-web`).waitFor();
    await webChanges
      .getByText("+ spec.template.spec.containers[web].image: ghcr.io/slipway-dev/slipway:0.1.0")
      .waitFor();
    await screenshot(page, "update-preview");
    expect((await readPlatformAsAdmin(namespace)).spec.version).toBe("0.0.9");
    await page.getByRole("button", { name: "Update to 0.1.0" }).click();

    // The real platform controller rolls the components to 0.1.0, one dependency level at a time.
    await page
      .getByText(/Platform Updating/)
      .first()
      .waitFor();
    await screenshot(page, "update-progress");
    expect((await readPlatformAsAdmin(namespace)).spec.version).toBe("0.1.0");

    const log = page.getByRole("log", { name: "Update progress" });
    await log.getByText("Platform Running at 0.1.0: update complete").waitFor({ timeout: 90_000 });
    const lines = await log.locator("li").allTextContents();
    expect(lines[0]).toContain("Update from 0.0.9 to 0.1.0 requested");
    expect(lines.some((line) => line.includes("Platform Updating"))).toBe(true);
    expect(lines.some((line) => /web: Ready, .*version 0\.1\.0/.test(line))).toBe(true);
    await page.getByText("Done: the platform runs 0.1.0.").waitFor();
    await page
      .getByRole("radio", { name: /0\.1\.0/ })
      .and(page.locator(":disabled"))
      .waitFor();
    expect(await page.getByRole("button", { name: "Start update" }).isDisabled()).toBe(true);
    await screenshot(page, "update-done");

    await page.getByRole("link", { name: "Overview" }).click();
    await expect.poll(() => page.getByTestId("version").textContent()).toBe("0.1.0");
  });

  it("colours an immutable-field conflict the update resolves as resolved, and one it cannot as failing", async () => {
    const { namespace, page, controllers } = await runningPlatformAndSignedInPage();
    await grantRole(namespace, "platform-admin", "platform-admin-preview", updatePreviewerRules);
    // postgres's StatefulSet as an older rendering left it: a volume claim template the release
    // no longer renders, owned by the operator's field manager (its apply would drop it: refused)
    await controllers.stop();
    const rest = new RestClient(adminConfig());
    onTestFinished(() => rest.close());
    const statefulSet = `/apis/apps/v1/namespaces/${namespace}/statefulsets/slipway-postgres`;
    const platform = (await readPlatformAsAdmin(namespace)) as PlatformResource;
    const component = await rest.request<ComponentResource>(
      "GET",
      resourcePath(types.component, { namespace, name: "slipway-postgres" }),
    );
    const rendered = (version: string) => {
      const release = findRelease(version);
      if (!release) throw new Error(`no release ${version}`);
      const object = renderUpdate(
        platform,
        { ...platform.spec, version },
        release,
        [component],
        types.component,
      )
        .find((c) => c.component === "postgres")
        ?.objects.find(({ object }) => object.kind === "StatefulSet")?.object as V1StatefulSet | undefined;
      if (!object?.spec) throw new Error(`no StatefulSet rendered for postgres at ${version}`);
      return object as V1StatefulSet & { spec: V1StatefulSetSpec };
    };
    const older = rendered("0.0.9");
    await rest.request("DELETE", statefulSet, {
      body: { apiVersion: "v1", kind: "DeleteOptions", propagationPolicy: "Orphan" },
    });
    await eventually(
      "the StatefulSet deleted",
      () => rest.request("GET", statefulSet).catch(() => undefined),
      (found) => found === undefined,
    );
    const operator = new KubeClient(rest, new ResourceTypes(rest), { fieldManager: operatorFieldManager });
    await operator.apply(
      {
        ...older,
        spec: {
          ...older.spec,
          volumeClaimTemplates: [
            {
              metadata: { name: "pgdata" },
              spec: { accessModes: ["ReadWriteOnce"], resources: { requests: { storage: "1Gi" } } },
            },
          ],
        },
      } as KubeObject,
      { force: true },
    );

    await page.getByRole("link", { name: "Update" }).click();
    await page.getByRole("radio", { name: /0\.1\.0/ }).check();
    const postgresChanges = page.getByRole("list", { name: "Changes to postgres" });
    const className = (text: string | RegExp) =>
      postgresChanges.getByText(text).evaluate((element) => element.className);
    // resolved (recreated, its claim kept): an informative note, not an error
    await page.getByRole("button", { name: "Preview changes" }).click();
    await postgresChanges.getByText(`! StatefulSet ${namespace}/slipway-postgres`).waitFor();
    const recreate = /^recreate StatefulSet .*\(spec\.volumeClaimTemplates is immutable\)/;
    await postgresChanges.getByText(recreate).waitFor();
    expect(await className(recreate)).toBe("log-info");
    expect(await className("immutable: spec.volumeClaimTemplates")).toBe("preview-note");
    await screenshot(page, "update-preview-conflict");

    // already created from the very rendering the update brings: refused again, it will fail
    const hash = rendered("0.1.0").metadata?.annotations?.[annotations.appliedHash] ?? "";
    expect(hash).not.toBe("");
    await rest.request("PATCH", statefulSet, {
      contentType: "application/merge-patch+json",
      body: { metadata: { annotations: { [annotations.appliedHash]: hash } } },
    });
    await page.getByRole("button", { name: "Preview changes" }).click();
    const willFail = /^will fail: the API server refuses the change to spec\.volumeClaimTemplates/;
    await postgresChanges.getByText(willFail).waitFor();
    expect(await className(willFail)).toBe("log-bad");
    expect(await className("immutable: spec.volumeClaimTemplates")).toBe("log-bad");
  });

  it("shows the failure and its reason when a component crash-loops during the update", async () => {
    const { namespace, page } = await runningPlatformAndSignedInPage();
    await startUpdateTo(page, "0.1.0");
    // mlflow's new pods crash-loop (kwok plays it), as a broken image would.
    await adminConfig()
      .makeApiClient(CustomObjectsApi)
      .patchNamespacedCustomObject(
        {
          group: PlatformKind.group,
          version: PlatformKind.version,
          plural: PlatformKind.plural,
          namespace,
          name: "slipway",
          body: {
            spec: { components: { mlflow: { podAnnotations: { "sim.slipway.dev/outcome": "crashloop" } } } },
          },
        },
        setHeaderOptions("Content-Type", PatchStrategy.MergePatch),
      );

    const problem = page.getByRole("alert").filter({ hasText: "The update has a problem" });
    await problem.waitFor({ timeout: 90_000 });
    expect(await problem.textContent()).toMatch(/mlflow.*CrashLoopBackOff/);
    const log = page.getByRole("log", { name: "Update progress" });
    await log
      .getByText(/mlflow: Failed/)
      .first()
      .waitFor();
    await screenshot(page, "update-failed");

    await page.getByRole("link", { name: "Overview" }).click();
    const mlflow = page.locator('tr[data-component="mlflow"]');
    await mlflow.getByText("Failed", { exact: true }).waitFor();
    expect(await mlflow.textContent()).toContain("CrashLoopBackOff");
    await screenshot(page, "overview-failed");
  });
});
