import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { ImageBuildKind } from "../../../src/apis/builds/imagebuild.ts";
import {
  buildingWithPod,
  buildLogRules,
  buildPodContainerState,
  kanikoPod,
} from "../../integration/server/build-pods.ts";
import { serviceAccountToken, startServer } from "../../integration/server/server.ts";
import { skipFor } from "../../support/allowed-skips.ts";
import { testNamespace } from "../../support/cluster.ts";
import { installCrds } from "../../support/crds.ts";
import { grantRole } from "../../support/service-account.ts";
import { buildWebUi, launchChromium, screenshot, signedInPage } from "./browser.ts";

const skipped = inject("realNodeSkipped");

describe("the build page's log, streamed from a real pod (headless Chromium)", skipFor(skipped), () => {
  let browser: Browser;
  let webRoot: string;

  beforeAll(async () => {
    await installCrds([ImageBuildKind]);
    webRoot = await buildWebUi();
    browser = await launchChromium();
  });
  afterAll(() => browser?.close());

  it("shows the build container's lines as it writes them, while the build runs, then the rest under a header per container", {
    timeout: 240_000,
  }, async () => {
    const namespace = await testNamespace("buildlog-page");
    const url = await startServer(namespace, { webRoot });
    const token = await serviceAccountToken(namespace, "scientist");
    await grantRole(namespace, "scientist", "scientist-builds", [
      { apiGroups: [ImageBuildKind.group], resources: ["imagebuilds"], verbs: ["get", "list", "watch"] },
      ...buildLogRules,
    ]);
    // the page is open before the build and its pod exist: everything it shows arrives live
    const page = await signedInPage(browser, `${url}/builds/${namespace}/scorer`, token);
    await page.getByText(`There is no ImageBuild ${namespace}/scorer.`).waitFor();
    await buildingWithPod(namespace, kanikoPod());

    await page.getByTestId("phase").getByText("Building").waitFor();
    const log = page.getByRole("log", { name: "Build log" });
    await log.getByText("step 1 of 2").waitFor({ timeout: 120_000 });
    // shown while the build container still runs: its second line is 20 s away
    expect((await buildPodContainerState(namespace, "kaniko"))?.terminated).toBeUndefined();
    expect(await log.textContent()).not.toContain("step 2 of 2");
    await screenshot(page, "build-log-streaming");

    await log.getByText("step 2 of 2").waitFor({ timeout: 60_000 });
    expect(await log.textContent()).toBe(
      "── fetch ──\nfetched the artifact\n── kaniko ──\nstep 1 of 2\nstep 2 of 2\n",
    );
    await screenshot(page, "build-log-complete");
  });
});
