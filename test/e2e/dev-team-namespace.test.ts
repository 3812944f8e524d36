/**
 * What `make demo` sets up (`slipway dev up`, then `slipway install --dev`), on a control plane of
 * its own (kwok only): the dev plane is a release install — the operator runs as the release's
 * ServiceAccount and the API server calls its admission webhook — and teams work side by side:
 * a Provider in a namespace of its own is Ready only once a workflow controller serves that
 * namespace, then its Pipeline reaches Synchronized, and a team onboarded with
 * `slipway dev team` builds an image from a context uploaded the README's way, runs a Pipeline on
 * the platform's Provider, and is refused at admission when it names a Secret it may not read.
 */
import { mkdtemp, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { AuthenticationV1Api, CoreV1Api, KubeConfig, KubernetesObjectApi } from "@kubernetes/client-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { demoReleases } from "../../src/dev/demo.ts";
import { privateDev, slipway } from "../support/cli.ts";
import { eventually } from "../support/cluster.ts";
import { workflowControllerDeployment } from "../support/fakes/pipelines-operator.ts";
import { condition } from "../support/pipelines-testbed.ts";

// biome-ignore lint/suspicious/noExplicitAny: test reads of arbitrary objects
type Any = any;
const pipelines = "pipelines.slipway.dev/v1beta1";
const builds = "builds.slipway.dev/v1beta1";
const apiOf = (path: string) => {
  const config = new KubeConfig();
  config.loadFromFile(path);
  return config;
};
const refusal = (promise: Promise<unknown>) =>
  promise.then(
    () => undefined,
    (error: Any) => String(error?.body ?? error),
  );

let dev: Awaited<ReturnType<typeof privateDev>>["dev"];
let dir: string;
let kubeconfig: string;
let api: KubernetesObjectApi;
const read = (apiVersion: string, kind: string, namespace: string | undefined, name: string) =>
  api.read({ apiVersion, kind, metadata: { name, namespace } }) as Promise<Any>;

beforeAll(async () => {
  ({ dev, dir } = await privateDev("slipway-team-"));
  const up = await dev("up");
  expect(up.code, up.stderr).toBe(0);
  kubeconfig = up.stdout.trim();
  const install = await slipway([
    "install",
    ...["--dev", "--no-wait", "--version", demoReleases().install],
    ...["--kubeconfig", kubeconfig, "-n", "slipway"],
  ]);
  expect(install.code, install.stderr).toBe(0);
  api = KubernetesObjectApi.makeApiClient(apiOf(kubeconfig));
}, 600_000);

afterAll(async () => {
  await dev?.("down");
});

describe("the demo's set-up is a release install", () => {
  it("the operator authenticates as the release's ServiceAccount and its webhook is called by the API server", {
    timeout: 120_000,
  }, async () => {
    const review = await apiOf(join(dir, "operator.kubeconfig"))
      .makeApiClient(AuthenticationV1Api)
      .createSelfSubjectReview({ body: {} });
    expect(review.status?.userInfo?.username).toBe("system:serviceaccount:slipway:slipway-operator");
    const configuration = await eventually(
      "the ImageBuild webhook configuration has the operator's CA",
      () =>
        read(
          "admissionregistration.k8s.io/v1",
          "ValidatingWebhookConfiguration",
          undefined,
          "slipway-imagebuilds-slipway",
        ),
      (c) => Boolean(c.webhooks?.[0]?.clientConfig?.caBundle),
      60_000,
    );
    expect(configuration.webhooks[0].clientConfig.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+\//);
  });
});

describe("the demo's set-up serves team namespaces", () => {
  it("a Provider in a new namespace is not Ready until a workflow controller serves it; then its Pipeline reaches Synchronized with a WorkflowTemplate", {
    timeout: 180_000,
  }, async () => {
    await api.create({ apiVersion: "v1", kind: "Namespace", metadata: { name: "ml" } });
    await api.create({
      apiVersion: pipelines,
      kind: "Provider",
      metadata: { name: "argo", namespace: "ml" },
      spec: { type: "argo" },
    } as Any);
    await api.create({
      apiVersion: pipelines,
      kind: "Pipeline",
      metadata: { name: "train", namespace: "ml" },
      spec: {
        provider: "argo",
        image: "registry.example/ml/pipeline:1",
        steps: [{ name: "train", args: ["--epochs=1"] }],
      },
    } as Any);

    // the platform's Argo runs --namespaced to the platform's namespace: nothing would run ml's Workflows
    const unserved = await eventually(
      "Provider ml/argo Ready=False",
      () => read(pipelines, "Provider", "ml", "argo"),
      (p) => condition(p, "Ready")?.status === "False",
      60_000,
    );
    expect(condition(unserved, "Ready")?.message).toContain(
      "no Argo workflow controller serves namespace ml",
    );
    const waiting = await eventually(
      "Pipeline ml/train waiting for its Provider",
      () => read(pipelines, "Pipeline", "ml", "train"),
      // first "its backend has not answered yet", then the Provider's reason once it is known
      (p) =>
        condition(p, "ProviderAccepted")?.reason === "ProviderNotReady" &&
        (condition(p, "ProviderAccepted")?.message ?? "").includes("namespace ml"),
      60_000,
    );
    expect(condition(waiting, "ProviderAccepted")?.message).toContain(
      "no Argo workflow controller serves namespace ml",
    );

    // a namespace-install of Argo's controller in ml (its Deployment: kwok runs no process in it)
    await api.create(workflowControllerDeployment("ml") as Any);
    const synced = await eventually(
      "Pipeline ml/train Synchronized",
      () => read(pipelines, "Pipeline", "ml", "train"),
      (p) => condition(p, "Synchronized")?.status === "True",
      120_000,
    );
    expect(condition(synced, "Synchronized")).toMatchObject({ reason: "Succeeded" });
    const template = await read("argoproj.io/v1alpha1", "WorkflowTemplate", "ml", "ml.train");
    expect(template.metadata.labels).toMatchObject({ "pipelines.slipway.dev/name": "train" });
    const crd = await read(
      "apiextensions.k8s.io/v1",
      "CustomResourceDefinition",
      undefined,
      "workflowtemplates.argoproj.io",
    );
    expect(crd.metadata.labels).toMatchObject({ "app.kubernetes.io/component": "workflow-engine" });
  });

  it("a team onboarded with `dev team` builds, runs a Pipeline on the platform's Provider, and cannot name a Secret it may not read", {
    timeout: 420_000,
  }, async () => {
    const onboarded = await dev("team", "team-b");
    expect(onboarded.code, onboarded.stderr).toBe(0);
    expect(onboarded.stderr).toContain("spec.provider: slipway/slipway");
    const member = apiOf(onboarded.stdout.trim());
    const asMember = KubernetesObjectApi.makeApiClient(member);
    // no right on Secrets, not even its own namespace's
    expect(
      await refusal(
        member
          .makeApiClient(CoreV1Api)
          .readNamespacedSecret({ name: "slipway-builds-s3", namespace: "team-b" }),
      ),
    ).toContain("forbidden");

    // the README's flow: upload a context, then an ImageBuild with that URI
    const context = await mkdtemp(join(tmpdir(), "slipway-team-context-"));
    await writeFile(join(context, "Dockerfile"), "FROM scratch\nCOPY model.txt /model.txt\n");
    await writeFile(join(context, "model.txt"), "team-b's model\n");
    const upload = await dev("upload", context, "team-b/scorer");
    expect(upload.code, upload.stderr).toBe(0);
    const build = (name: string, buildArgs: object[] = []) =>
      asMember.create({
        apiVersion: builds,
        kind: "ImageBuild",
        metadata: { name, namespace: "team-b" },
        spec: {
          project: "team",
          name: "scorer",
          version: "v1",
          artifactUri: upload.stdout.trim(),
          buildArgs,
        },
      } as Any);
    // the admission webhook runs in dev: a build argument from a Secret the member may not get is refused
    const refused = await refusal(
      build("steal", [
        {
          name: "KEY",
          valueFrom: { secretKeyRef: { name: "slipway-builds-s3", key: "AWS_SECRET_ACCESS_KEY" } },
        },
      ]),
    );
    expect(refused).toContain("denied the request");
    expect(refused).toContain("slipway-builds-s3");
    await build("scorer");
    const built = await eventually(
      "ImageBuild team-b/scorer finished",
      () => read(builds, "ImageBuild", "team-b", "scorer"),
      (b) => b.status?.phase === "Succeeded" || b.status?.phase === "Failed",
      300_000,
    );
    expect(built.status.phase, built.status.message).toBe("Succeeded");
    // under the team's own prefix of dev's registry
    expect(built.status.image).toMatch(/^127\.0\.0\.1:\d+\/team-b\/team-scorer:v1$/);

    await asMember.create({
      apiVersion: pipelines,
      kind: "Pipeline",
      metadata: { name: "train", namespace: "team-b" },
      spec: {
        provider: "slipway/slipway",
        image: "registry.example/team-b/pipeline:1",
        steps: [{ name: "train", args: ["--epochs=1"] }],
      },
    } as Any);
    const synced = await eventually(
      "Pipeline team-b/train Synchronized on the platform's Provider",
      () => read(pipelines, "Pipeline", "team-b", "train"),
      (p) =>
        condition(p, "Synchronized")?.status === "True" ||
        condition(p, "Synchronized")?.reason === "ProviderNotAllowed",
      120_000,
    );
    expect(condition(synced, "Synchronized"), JSON.stringify(synced.status)).toMatchObject({
      status: "True",
    });
    // the team's entry is its own: the Provider keeps the platform's spec and lists the team
    const provider = await read(pipelines, "Provider", "slipway", "slipway");
    expect(provider.spec.allowedNamespaces).toEqual(["team-b"]);
    expect(provider.spec.type).toBe("argo");
    expect(await readFile(onboarded.stdout.trim(), "utf8")).not.toContain("client-key-data");
  });
});
