import { CustomObjectsApi } from "@kubernetes/client-node";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ImageBuildKind } from "../../../src/apis/builds/imagebuild.ts";
import type { Kind } from "../../../src/apis/kind.ts";
import { PipelineKind, ProviderKind, pipelineKinds, RunKind } from "../../../src/apis/pipelines/index.ts";
import { serviceAccountToken, startServer } from "../../integration/server/server.ts";
import { adminConfig, testNamespace } from "../../support/cluster.ts";
import { installCrds } from "../../support/crds.ts";
import { grantRole } from "../../support/service-account.ts";
import { buildWebUi, launchChromium, screenshot, signedInPage } from "./browser.ts";

const objects = () => adminConfig().makeApiClient(CustomObjectsApi);
const at = (kind: Kind, namespace: string) => ({
  group: kind.group,
  version: kind.version,
  plural: kind.plural,
  namespace,
});

async function create(kind: Kind, namespace: string, name: string, spec: unknown) {
  await objects().createNamespacedCustomObject({
    ...at(kind, namespace),
    body: { apiVersion: `${kind.group}/${kind.version}`, kind: kind.kind, metadata: { name }, spec },
  });
}

/** Writes the status of an object as its controller would (admin). */
async function writeStatus(kind: Kind, namespace: string, name: string, status: Record<string, unknown>) {
  const current = await objects().getNamespacedCustomObject({ ...at(kind, namespace), name });
  await objects().replaceNamespacedCustomObjectStatus({
    ...at(kind, namespace),
    name,
    body: { ...(current as object), status },
  });
}

/** A computed style of the element `selector` finds first in the page. */
const computed = async (page: Page, selector: string, property: string) =>
  String(
    await page.evaluate(`getComputedStyle(document.querySelector(${JSON.stringify(selector)})).${property}`),
  );

const buildSpec = { project: "fraud", name: "scorer", version: "v1", artifactUri: "s3://models/fraud/v1" };
const diamond = {
  provider: "argo",
  image: "trainer:1",
  parameters: [{ name: "epochs", default: "3" }, { name: "dataset" }],
  steps: [
    { name: "prepare", command: ["python", "prepare.py"] },
    { name: "train-a", dependsOn: ["prepare"] },
    { name: "train-b", dependsOn: ["prepare"] },
    { name: "evaluate", dependsOn: ["train-a", "train-b"] },
  ],
};

/** The rights of a platform user working in `namespace`: their builds and pipeline resources. */
async function grantScientist(namespace: string, account: string) {
  await grantRole(namespace, account, `${account}-work`, [
    {
      apiGroups: [ImageBuildKind.group],
      resources: ["imagebuilds"],
      verbs: ["get", "list", "watch", "create"],
    },
    {
      apiGroups: [PipelineKind.group],
      resources: ["pipelines", "runs", "providers", "runconfigurations", "runschedules", "experiments"],
      verbs: ["get", "list", "watch"],
    },
    { apiGroups: [PipelineKind.group], resources: ["runs"], verbs: ["create"] },
    { apiGroups: [""], resources: ["events"], verbs: ["list"] },
    // a step's log: the pods of the Run's Workflow
    { apiGroups: [""], resources: ["pods"], verbs: ["list"] },
    { apiGroups: [""], resources: ["pods/log"], verbs: ["get"] },
  ]);
}

describe("web UI pages of builds, pipelines, runs and providers (headless Chromium)", () => {
  let browser: Browser;
  let webRoot: string;

  beforeAll(async () => {
    await installCrds([ImageBuildKind, ...pipelineKinds]);
    webRoot = await buildWebUi();
    browser = await launchChromium();
  });
  afterAll(() => browser?.close());

  async function scientistPage(path: (namespace: string) => string, width = 1280) {
    const namespace = await testNamespace("pages");
    const url = await startServer(namespace, { webRoot });
    const token = await serviceAccountToken(namespace, "scientist");
    await grantScientist(namespace, "scientist");
    const page = await signedInPage(browser, `${url}${path(namespace)}`, token, width);
    return { namespace, url, page };
  }

  it("builds: the list and a build going Building → Succeeded live; the form shows the server's field error, then creates", async () => {
    const { namespace, page } = await scientistPage((ns) => `/builds?namespace=${ns}`);
    await create(ImageBuildKind, namespace, "scorer", buildSpec);
    const row = page.locator('tr[data-row="scorer"]');
    await row.getByText("Pending").waitFor();
    expect(await page.getByLabel("Namespace").inputValue()).toBe(namespace);
    await writeStatus(ImageBuildKind, namespace, "scorer", { phase: "Building", attempts: 1 });
    await row.getByText("Building").waitFor();
    await screenshot(page, "builds-list");

    await row.getByRole("link", { name: "scorer" }).click();
    await page.getByRole("heading", { name: `${namespace}/scorer` }).waitFor();
    await page.getByTestId("phase").getByText("Building").waitFor();
    await writeStatus(ImageBuildKind, namespace, "scorer", {
      phase: "Succeeded",
      attempts: 1,
      reused: false,
      image: "registry.local/fraud/scorer:v1",
      digest: "sha256:abc123",
      startedAt: "2026-01-01T10:00:00Z",
      completedAt: "2026-01-01T10:01:30Z",
      conditions: [
        {
          type: "Ready",
          status: "True",
          reason: "Built",
          message: "pushed",
          lastTransitionTime: "2026-01-01T10:01:30Z",
        },
      ],
    });
    await page.getByTestId("phase").getByText("Succeeded").waitFor();
    expect(await page.getByTestId("image").textContent()).toBe("registry.local/fraud/scorer:v1");
    await page.getByText("sha256:abc123").waitFor();
    await page.getByText("90s").waitFor();
    await screenshot(page, "build-detail");

    await page.getByRole("link", { name: `← Builds in ${namespace}` }).click();
    await page.getByRole("button", { name: "New build" }).click();
    await page.getByLabel("Resource name").fill("trainer");
    await page.getByLabel("Project").fill("fraud");
    await page.getByLabel("Image name").fill("trainer");
    await page.getByLabel("Version").fill("v2");
    await page.getByLabel("Artifact URI").fill("ftp://models/trainer");
    await page.getByRole("button", { name: "Create build" }).click();
    const uri = page.getByLabel("Artifact URI");
    await expect.poll(() => uri.getAttribute("aria-invalid")).toBe("true");
    await page
      .locator(".field-error")
      .getByText(/body\.spec\.artifactUri/)
      .waitFor();
    await screenshot(page, "build-form-invalid");
    await uri.fill("s3://models/trainer/v2");
    await page.getByRole("button", { name: "Create build" }).click();
    await page.getByRole("heading", { name: `${namespace}/trainer` }).waitFor();
    const stored = await objects().getNamespacedCustomObject({
      ...at(ImageBuildKind, namespace),
      name: "trainer",
    });
    expect((stored as { spec: unknown }).spec).toEqual({
      project: "fraud",
      name: "trainer",
      version: "v2",
      artifactUri: "s3://models/trainer/v2",
    });
  });

  it("pipelines: the list, and a diamond's step graph in three layers with its four edges, and the version history", async () => {
    const { namespace, page } = await scientistPage((ns) => `/pipelines?namespace=${ns}`);
    await create(ProviderKind, namespace, "argo", { type: "argo" });
    await create(PipelineKind, namespace, "diamond", diamond);
    await writeStatus(PipelineKind, namespace, "diamond", { state: "Succeeded", version: "5f3e2a" });
    const row = page.locator('tr[data-row="diamond"]');
    await row.getByText("Succeeded").waitFor();
    await screenshot(page, "pipelines-list");

    await row.getByRole("link", { name: "diamond" }).click();
    const graph = page.getByRole("img", { name: "Step graph: 4 steps, 4 dependencies" });
    await graph.waitFor();
    const edges = await graph
      .locator("[data-edge]")
      .evaluateAll((paths) => paths.map((path) => path.getAttribute("data-edge")));
    expect(edges.sort()).toEqual([
      "prepare->train-a",
      "prepare->train-b",
      "train-a->evaluate",
      "train-b->evaluate",
    ]);
    const boxes = Object.fromEntries(
      await Promise.all(
        ["prepare", "train-a", "train-b", "evaluate"].map(async (step) => [
          step,
          await graph.locator(`[data-step="${step}"]`).boundingBox(),
        ]),
      ),
    );
    // left to right by layer; the two parallel steps share a layer, one above the other
    expect(boxes.prepare.x).toBeLessThan(boxes["train-a"].x);
    expect(boxes["train-a"].x).toBe(boxes["train-b"].x);
    expect(boxes["train-a"].y).not.toBe(boxes["train-b"].y);
    expect(boxes["train-b"].x).toBeLessThan(boxes.evaluate.x);
    await page.getByRole("cell", { name: "python prepare.py" }).waitFor();
    await page.getByRole("cell", { name: "(required)" }).waitFor();
    await page.getByText("Current version").getByText("5f3e2a").waitFor();
    await screenshot(page, "pipeline-detail");
  });

  it("runs: start one from the pipeline's page (a missing parameter is the server's field error), then follow Running → Succeeded live", async () => {
    const { namespace, page } = await scientistPage((ns) => `/pipelines?namespace=${ns}`);
    await create(ProviderKind, namespace, "argo", { type: "argo" });
    await create(PipelineKind, namespace, "diamond", { ...diamond, steps: diamond.steps.slice(0, 1) });
    await page.locator('tr[data-row="diamond"]').getByRole("link", { name: "diamond" }).click();
    await page.getByRole("link", { name: "Start a run" }).click();
    const form = page.getByRole("region", { name: "Start a run" });
    // the pipeline from the link is chosen once the namespace's pipelines are read
    await expect.poll(() => form.getByLabel("Pipeline").inputValue()).toBe("diamond");
    await expect.poll(() => form.getByLabel("Parameter epochs").inputValue()).toBe("3");
    await form.getByRole("button", { name: "Start run" }).click();
    const dataset = form.getByLabel("Parameter dataset");
    await expect.poll(() => dataset.getAttribute("aria-invalid")).toBe("true");
    await form
      .locator(".field-error")
      .getByText(/dataset has no default/)
      .waitFor();
    await screenshot(page, "run-form-invalid");
    await dataset.fill("s3://data/fraud");
    await form.getByRole("button", { name: "Start run" }).click();
    const heading = page.getByRole("heading", { name: new RegExp(`^${namespace}/diamond-`) });
    await heading.waitFor();
    const name = ((await heading.textContent()) ?? "").split("/")[1] ?? "";
    await page.getByRole("cell", { name: "s3://data/fraud" }).waitFor();

    await writeStatus(RunKind, namespace, name, {
      state: "Succeeded",
      version: "77aa",
      provider: { name: `${namespace}/argo`, id: `${namespace}.${name}` },
      steps: [{ name: "prepare", phase: "Running", startedAt: new Date().toISOString() }],
    });
    await page.getByTestId("state").getByText("Running").waitFor();
    const steps = page.getByRole("table", { name: "Steps" });
    await steps.locator('tr[data-row="prepare"]').getByText("Running").waitFor();
    // its log: this control plane's kwok node runs no Argo, so no pod ran the step, and the page says so
    await steps.getByRole("button", { name: "Log of prepare" }).click();
    await page
      .locator(".notice")
      .getByText(`no pod in namespace ${namespace} ran the step prepare of Run ${namespace}/${name}`, {
        exact: false,
      })
      .waitFor();
    await screenshot(page, "run-running");
    await writeStatus(RunKind, namespace, name, {
      state: "Succeeded",
      version: "77aa",
      completionState: "Succeeded",
      completedAt: new Date().toISOString(),
      artifacts: [{ name: "model", location: "s3://pipelines/root/model" }],
    });
    await page.getByTestId("state").getByText("Succeeded").waitFor();
    await page.getByRole("link", { name: `← Runs in ${namespace}` }).click();
    const row = page.locator(`tr[data-row="${name}"]`);
    await row.getByText("Succeeded").first().waitFor();
    await screenshot(page, "runs-list");
  });

  it("runs: the diamond's step graph coloured by each step's phase, live; a node shows its step's log; narrow windows scroll the graph; a Pipeline gone leaves the recorded steps", async () => {
    const { namespace, url, page } = await scientistPage((ns) => `/runs?namespace=${ns}`);
    await create(ProviderKind, namespace, "argo", { type: "argo" });
    await create(PipelineKind, namespace, "diamond", diamond);
    await create(RunKind, namespace, "diamond-1", { provider: "argo", pipeline: "diamond" });
    const started = new Date().toISOString();
    const steps = (trainB: string) => [
      { name: "prepare", phase: "Succeeded", startedAt: started, finishedAt: started, cacheHit: true },
      {
        name: "train-a",
        phase: "Failed",
        startedAt: started,
        finishedAt: started,
        exitCode: 3,
        message: "Error (exit code 3)",
      },
      { name: "train-b", phase: trainB, startedAt: started },
    ];
    const status = { state: "Succeeded", version: "77aa", provider: { name: `${namespace}/argo`, id: "w" } };
    await writeStatus(RunKind, namespace, "diamond-1", { ...status, steps: steps("Running") });
    await page.goto(`${url}/runs/${namespace}/diamond-1`);

    const graph = page.getByRole("group", { name: "Step graph: 4 steps, 4 dependencies" });
    const node = (name: string) => graph.getByRole("button", { name, exact: true });
    await node("train-b: Running").waitFor();
    const tones = { prepare: "good", "train-a": "bad", "train-b": "good", evaluate: "idle" };
    for (const [step, tone] of Object.entries(tones))
      expect(await graph.locator(`[data-step="${step}"]`).getAttribute("data-tone")).toBe(tone);
    await node("prepare: Succeeded").waitFor();
    await node("train-a: Failed").waitFor();
    await node("evaluate: not started").waitFor();
    expect(await graph.locator('[data-step="train-a"]').getAttribute("class")).toContain("node-bad");
    // the same colour as the table's badge of that phase
    const fill = await computed(page, '[data-step="train-a"] rect', "fill");
    expect(fill).toBe(await computed(page, 'tr[data-row="train-a"] .badge', "backgroundColor"));
    expect(fill).not.toBe(await computed(page, '[data-step="prepare"] rect', "fill"));
    // the steps' table stays, with what the graph does not show
    await page
      .getByRole("table", { name: "Steps" })
      .getByRole("cell", { name: "Error (exit code 3)" })
      .waitFor();
    // prepare reused an earlier execution (argo's memoizationStatus.hit): said in its row
    await page.locator('tr[data-row="prepare"]').getByRole("cell", { name: "hit", exact: true }).waitFor();
    expect(
      await page.locator('tr[data-row="train-a"]').getByRole("cell", { name: "hit", exact: true }).count(),
    ).toBe(0);

    // a node shows its step's log: kwok runs no Argo, so no pod ran it, and the page says so
    await node("train-a: Failed").click();
    expect(await node("train-a: Failed").getAttribute("aria-pressed")).toBe("true");
    await page
      .locator(".notice")
      .getByText(`no pod in namespace ${namespace} ran the step train-a of Run ${namespace}/diamond-1`, {
        exact: false,
      })
      .waitFor();
    await node("evaluate: not started").press("Enter");
    await page.getByText("Step evaluate has not started: it has no log yet.").waitFor();
    await screenshot(page, "run-step-graph");

    await writeStatus(RunKind, namespace, "diamond-1", { ...status, steps: steps("Succeeded") });
    await node("train-b: Succeeded").waitFor();
    expect(await graph.locator('[data-step="train-b"]').getAttribute("data-tone")).toBe("good");
    await writeStatus(RunKind, namespace, "diamond-1", {
      ...status,
      steps: [...steps("Succeeded"), { name: "evaluate", phase: "Pending" }],
    });
    await node("evaluate: Pending").waitFor();
    expect(await graph.locator('[data-step="evaluate"]').getAttribute("data-tone")).toBe("busy");

    await page.setViewportSize({ width: 420, height: 800 });
    await node("evaluate: Pending").waitFor();
    await screenshot(page, "run-step-graph-narrow");
    const overflow = await page.evaluate("document.documentElement.scrollWidth - window.innerWidth");
    expect(overflow).toBeLessThanOrEqual(0);

    // a Run whose Pipeline is gone: its recorded steps, without dependencies, and why
    await create(RunKind, namespace, "orphan", { provider: "argo", pipeline: "gone" });
    await writeStatus(RunKind, namespace, "orphan", {
      ...status,
      steps: [{ name: "prepare", phase: "Failed" }],
    });
    await page.goto(`${url}/runs/${namespace}/orphan`);
    await page.getByText(`Cannot read Pipeline gone (Pipeline ${namespace}/gone does not exist)`).waitFor();
    await page
      .getByRole("group", { name: "Step graph: 1 steps, 0 dependencies" })
      .getByRole("button", { name: "prepare: Failed", exact: true })
      .waitFor();
  });

  it("providers: type, Ready with its message, allowed namespaces and the resources using each", async () => {
    const { namespace, page } = await scientistPage((ns) => `/providers?namespace=${ns}`);
    await create(ProviderKind, namespace, "argo", { type: "argo", allowedNamespaces: ["team-b"] });
    await create(PipelineKind, namespace, "diamond", diamond);
    await writeStatus(ProviderKind, namespace, "argo", {
      conditions: [
        {
          type: "Ready",
          status: "True",
          reason: "BackendReady",
          message: "Argo answered",
          lastTransitionTime: "2026-01-01T10:00:00Z",
        },
      ],
    });
    const row = page.locator('tr[data-row="argo"]');
    await row.getByText("Argo answered").waitFor();
    expect(await row.textContent()).toContain("team-b");
    await row.getByRole("link", { name: "Pipeline diamond" }).waitFor();
    await screenshot(page, "providers");
  });

  it("a user without rights sees an empty state, and a plain refusal on a namespace named in the address; narrow windows stay readable", async () => {
    const namespace = await testNamespace("pages-none");
    const url = await startServer(namespace, { webRoot });
    const token = await serviceAccountToken(namespace, "nobody");
    const page = await signedInPage(browser, `${url}/builds`, token);
    await page.getByRole("heading", { name: "No namespace to show" }).waitFor();
    await screenshot(page, "builds-no-rights");
    await page.goto(`${url}/builds?namespace=${namespace}`);
    await page
      .getByRole("alert")
      .getByText(/Cannot show the builds: .*forbidden/)
      .waitFor();
    await screenshot(page, "builds-forbidden");

    const narrow = await scientistPage((ns) => `/builds?namespace=${ns}`, 420);
    await create(ImageBuildKind, narrow.namespace, "scorer", buildSpec);
    await narrow.page.locator('tr[data-row="scorer"]').waitFor();
    await screenshot(narrow.page, "builds-narrow");
    const overflow = await narrow.page.evaluate("document.documentElement.scrollWidth - window.innerWidth");
    expect(overflow).toBeLessThanOrEqual(0);
  });
});
