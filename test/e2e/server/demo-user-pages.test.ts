/**
 * The token `make demo` prints (src/dev/demo-user.ts) in the web UI: with it, the Builds, Pipelines,
 * Runs and Providers pages list what the demo made (the demo's names: ImageBuild demo-model,
 * Pipeline demo, Run demo-1, the platform's Provider) — before, each page said 403.
 */
import { CustomObjectsApi } from "@kubernetes/client-node";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ImageBuildKind } from "../../../src/apis/builds/imagebuild.ts";
import type { Kind } from "../../../src/apis/kind.ts";
import { PipelineKind, ProviderKind, pipelineKinds, RunKind } from "../../../src/apis/pipelines/index.ts";
import { PlatformKind } from "../../../src/apis/platform/index.ts";
import { demoUserToken, removeDemoUserPolicy } from "../../../src/dev/demo-user.ts";
import { startServer } from "../../integration/server/server.ts";
import { adminConfig, testNamespace } from "../../support/cluster.ts";
import { installCrds } from "../../support/crds.ts";
import { buildWebUi, launchChromium, screenshot, signedInPage } from "./browser.ts";

async function create(kind: Kind, namespace: string, name: string, spec: unknown) {
  await adminConfig()
    .makeApiClient(CustomObjectsApi)
    .createNamespacedCustomObject({
      group: kind.group,
      version: kind.version,
      plural: kind.plural,
      namespace,
      body: { apiVersion: `${kind.group}/${kind.version}`, kind: kind.kind, metadata: { name }, spec },
    });
}

describe("the demo's sign-in token in the web UI", () => {
  let browser: Browser;
  let webRoot: string;

  beforeAll(async () => {
    await installCrds([ImageBuildKind, PlatformKind, ...pipelineKinds]);
    webRoot = await buildWebUi();
    browser = await launchChromium();
  });
  afterAll(() => browser?.close());

  it("lists the demo's build, pipeline, run and provider on their pages", { timeout: 120_000 }, async () => {
    const namespace = await testNamespace("demo-user-pages");
    const url = await startServer(namespace, { webRoot });
    const token = await demoUserToken(adminConfig(), namespace);
    try {
      await create(ProviderKind, namespace, "slipway", { type: "argo" });
      await create(ImageBuildKind, namespace, "demo-model", {
        project: "demo",
        name: "model",
        version: "v1",
        artifactUri: "s3://slipway/demo/model",
      });
      await create(PipelineKind, namespace, "demo", {
        provider: "slipway",
        image: "docker.io/library/python:3.11.2-slim",
        steps: [{ name: "train", command: ["python3", "-c", "print(1)"] }],
      });
      await create(RunKind, namespace, "demo-1", { pipeline: "demo", provider: "slipway" });

      const pages: [string, string, string][] = [
        [`/builds?namespace=${namespace}`, "demo-model", "demo-user-builds"],
        [`/pipelines?namespace=${namespace}`, "demo", "demo-user-pipelines"],
        [`/runs?namespace=${namespace}`, "demo-1", "demo-user-runs"],
        [`/providers?namespace=${namespace}`, "slipway", "demo-user-providers"],
      ];
      const page = await signedInPage(browser, `${url}${pages[0]?.[0]}`, token);
      for (const [path, row, name] of pages) {
        await page.goto(`${url}${path}`);
        await page.locator(`tr[data-row="${row}"]`).waitFor();
        expect(await page.content()).not.toContain("403");
        await screenshot(page, name);
      }
    } finally {
      await removeDemoUserPolicy(adminConfig(), namespace);
    }
  });
});
