import { mkdir, mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Browser, chromium, type Page } from "playwright-core";
import { build } from "vite";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Platform, type PlatformResource } from "../../../src/apis/platform/platform.ts";
import { packageRoot } from "../../../src/dev/paths.ts";
import {
  createPlatform,
  grantPlatformAccess,
  readPlatformAsAdmin,
  serviceAccountToken,
  startServer,
  writePlatformStatus,
} from "../../integration/server/server.ts";
import { eventually, testNamespace } from "../../support/cluster.ts";
import { installCrds } from "../../support/crds.ts";

const screens = "/tmp/screens";
// The dependency levels of the default catalog: each level updates after the one before is Ready.
const levels = [
  ["postgres", "object-store", "registry"],
  ["mlflow", "workflow-engine", "api-server"],
  ["web"],
];
const names = levels.flat();
type Status = NonNullable<PlatformResource["status"]>;

/** Writes Platform status through an update as the platform controller does, one dependency level at a time. */
async function playUpdate(namespace: string, from: string, to: string): Promise<void> {
  const versions = new Map(names.map((name) => [name, from]));
  const status = (phase: Status["phase"], version: string, updating: string[] = []): Status => ({
    phase,
    version,
    ready: `${names.length - updating.length}/${names.length}`,
    message: phase === "Updating" ? `updating ${updating.join(", ")} to ${to}` : undefined,
    components: names.map((name) => ({
      name,
      phase: updating.includes(name) ? "Updating" : "Ready",
      ready: updating.includes(name) ? "0/1" : "1/1",
      version: versions.get(name),
    })),
  });
  for (const level of levels) {
    await writePlatformStatus(namespace, status("Updating", from, level));
    for (const name of level) versions.set(name, to);
  }
  await writePlatformStatus(namespace, status("Running", to));
}

describe("web UI (headless Chromium)", () => {
  let browser: Browser;
  let webRoot: string;

  beforeAll(async () => {
    await installCrds([Platform]);
    webRoot = await mkdtemp(join(tmpdir(), "slipway-web-"));
    await build({
      configFile: join(packageRoot, "web/vite.config.ts"),
      build: { outDir: webRoot, emptyOutDir: true },
      logLevel: "warn",
    });
    await mkdir(screens, { recursive: true });
    browser = await chromium.launch({
      executablePath: "/usr/bin/chromium",
      args: [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
      ],
    });
  });
  afterAll(() => browser?.close());

  const screenshot = (page: Page, name: string) =>
    page.screenshot({ path: join(screens, `${name}.png`), fullPage: true });

  it("signs in with a token, shows the live Overview, and follows an update to Running at the new version", async () => {
    const namespace = await testNamespace("ui");
    await createPlatform(namespace, "0.0.9");
    await writePlatformStatus(namespace, {
      phase: "Running",
      version: "0.0.9",
      ready: "7/7",
      components: names.map((name) => ({ name, phase: "Ready", ready: "1/1", version: "0.0.9" })),
    });
    const url = await startServer(namespace, { webRoot });
    const token = await serviceAccountToken(namespace, "admin-user");
    await grantPlatformAccess(namespace, "admin-user", ["get", "list", "watch", "patch"]);

    const page = await browser.newPage({ viewport: { width: 1200, height: 800 } });
    await page.goto(url);
    await page.getByRole("heading", { name: "Sign in to Slipway" }).waitFor();
    await page.getByLabel("Bearer token").fill("not-a-token");
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("alert").filter({ hasText: "Kubernetes does not accept this token" }).waitFor();
    await screenshot(page, "login");

    await page.getByLabel("Bearer token").fill(token);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("heading", { name: `${namespace}/slipway` }).waitFor();
    await page.getByText("Live", { exact: true }).waitFor();
    const rows = page.locator("table.components tbody tr");
    await expect.poll(() => rows.count()).toBe(names.length);
    expect(await page.getByTestId("version").textContent()).toBe("0.0.9");
    await screenshot(page, "overview");

    // The components table follows the Platform live.
    await writePlatformStatus(namespace, {
      phase: "Degraded",
      version: "0.0.9",
      ready: "6/7",
      components: names.map((name) =>
        name === "mlflow"
          ? {
              name,
              phase: "Failed",
              ready: "0/1",
              version: "0.0.9",
              message: "CrashLoopBackOff: exit code 1",
            }
          : { name, phase: "Ready", ready: "1/1", version: "0.0.9" },
      ),
    });
    await page.locator('tr[data-component="mlflow"]').getByText("CrashLoopBackOff: exit code 1").waitFor();
    await screenshot(page, "overview-degraded");
    await writePlatformStatus(namespace, {
      phase: "Running",
      version: "0.0.9",
      ready: "7/7",
      components: names.map((name) => ({ name, phase: "Ready", ready: "1/1", version: "0.0.9" })),
    });
    await page.getByTestId("phase").getByText("Running").waitFor();

    await page.getByRole("link", { name: "Update" }).click();
    await page.getByRole("group", { name: "Available versions" }).waitFor();
    expect(await page.getByRole("radio", { name: /0\.0\.9/ }).isDisabled()).toBe(true);
    await page.getByRole("radio", { name: /0\.1\.0/ }).check();
    await screenshot(page, "update-choose");
    await page.getByRole("button", { name: "Update to 0.1.0" }).click();

    await eventually(
      "spec.version set by the UI",
      () => readPlatformAsAdmin(namespace),
      (platform) => platform.spec.version === "0.1.0",
      30_000,
    );
    await playUpdate(namespace, "0.0.9", "0.1.0");

    const log = page.getByRole("log", { name: "Update progress" });
    await log.getByText("Platform Running at 0.1.0: update complete").waitFor();
    const lines = await log.locator("li").allTextContents();
    expect(lines[0]).toContain("Update from 0.0.9 to 0.1.0 requested");
    expect(lines.some((line) => line.includes("Platform Updating"))).toBe(true);
    expect(lines.some((line) => line.includes("web: Ready, 1/1 ready, version 0.1.0"))).toBe(true);
    await page.getByText("Done: the platform runs 0.1.0.").waitFor();
    await page
      .getByRole("radio", { name: /0\.1\.0/ })
      .and(page.locator(":disabled"))
      .waitFor();
    expect(await page.getByRole("button", { name: "Start update" }).isDisabled()).toBe(true);
    await screenshot(page, "update-done");

    await page.getByRole("link", { name: "Overview" }).click();
    await expect.poll(() => page.getByTestId("version").textContent()).toBe("0.1.0");
    await page.close();
  });
});
