/**
 * The Runs page of a namespace with 10,000 Runs (issue #34): the first page of 100 from the list
 * route, a More button, the next 100 on a click. The time to the first page is logged (a figure for
 * docs/scale.md), never asserted.
 */
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resourceTypeOf } from "../../../src/apis/kind.ts";
import { PipelineKind, pipelineKinds, RunKind } from "../../../src/apis/pipelines/index.ts";
import { resourcePath } from "../../../src/kube/keys.ts";
import { RestClient } from "../../../src/kube/rest.ts";
import { serviceAccountToken, startServer } from "../../integration/server/server.ts";
import { adminConfig, testNamespace } from "../../support/cluster.ts";
import { installCrds } from "../../support/crds.ts";
import { grantRole } from "../../support/service-account.ts";
import { buildWebUi, launchChromium, screenshot, signedInPage } from "./browser.ts";

const runs = 10_000;
/** The UI's page (web/src/api.ts listPageSize). */
const pageSize = 100;
const runName = (i: number) => `run-${String(i).padStart(5, "0")}`;

/**
 * `runs` Runs in `namespace` as the admin, 32 in flight: the API server's schema is all that checks
 * them (no operator). Slipway's own client, whose connections are kept alive: client-node's agent
 * is not, and a TLS handshake per create cost most of this test's time.
 */
async function createRuns(namespace: string): Promise<void> {
  const rest = new RestClient(adminConfig());
  const path = resourcePath(resourceTypeOf(RunKind), { namespace });
  try {
    let next = 0;
    const worker = async () => {
      for (let i = next++; i < runs; i = next++) {
        await rest.request("POST", path, {
          body: {
            apiVersion: RunKind.apiVersion,
            kind: RunKind.kind,
            metadata: { name: runName(i) },
            spec: { provider: "argo", pipeline: "train" },
          },
        });
      }
    };
    await Promise.all(Array.from({ length: 32 }, worker));
  } finally {
    rest.close();
  }
}

describe("the Runs page of a namespace with 10,000 Runs (headless Chromium)", () => {
  let browser: Browser;
  let webRoot: string;

  beforeAll(async () => {
    await installCrds(pipelineKinds);
    webRoot = await buildWebUi();
    browser = await launchChromium();
  });
  afterAll(() => browser?.close());

  it("shows exactly the first page of 100 and a More button; More shows 200", {
    timeout: 600_000,
  }, async () => {
    const namespace = await testNamespace("runs-10k");
    await createRuns(namespace);
    const url = await startServer(namespace, { webRoot });
    const token = await serviceAccountToken(namespace, "scientist");
    await grantRole(namespace, "scientist", "scientist-runs", [
      {
        apiGroups: [PipelineKind.group],
        resources: ["pipelines", "runs", "providers"],
        verbs: ["get", "list", "watch"],
      },
    ]);
    const page = await signedInPage(browser, `${url}/runs?namespace=${namespace}`, token);
    const rows = page.locator("tbody tr[data-row]");
    await rows.nth(pageSize - 1).waitFor();

    // the first page again from a fresh load (signed in: the token is in the tab's sessionStorage)
    const started = performance.now();
    await page.reload();
    await rows.nth(pageSize - 1).waitFor();
    const firstPageSeconds = (performance.now() - started) / 1000;
    console.log(
      `runs-paging: first page of ${pageSize} of ${runs} Runs shown ${firstPageSeconds.toFixed(3)} s after reload`,
    );

    expect(await rows.count()).toBe(pageSize);
    expect(await rows.first().getAttribute("data-row")).toBe(runName(0));
    expect(await rows.last().getAttribute("data-row")).toBe(runName(pageSize - 1));
    await page.getByText(`${pageSize} shown, ${runs - pageSize} more`).waitFor();
    await screenshot(page, "runs-10k-first-page");

    await page.getByRole("button", { name: "More" }).click();
    await rows.nth(2 * pageSize - 1).waitFor();
    expect(await rows.count()).toBe(2 * pageSize);
    expect(await rows.last().getAttribute("data-row")).toBe(runName(2 * pageSize - 1));
    await page.getByText(`${2 * pageSize} shown, ${runs - 2 * pageSize} more`).waitFor();
  });
});
