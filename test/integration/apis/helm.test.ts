/** The Helm chart, linted and rendered by the real helm, renders the same objects as the bundle. */
import { execFile } from "node:child_process";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it, onTestFinished } from "vitest";
import { parseAllDocuments } from "yaml";
import { PlatformKind } from "../../../src/apis/platform/platform.ts";
import {
  type BundleObject,
  type BundleOptions,
  bundleFor,
  defaultNamespace,
} from "../../../src/bundle/bundle.ts";
import { flowControlKinds } from "../../../src/bundle/flow-control.ts";
import { chartDir, helmLabels, ownedTemplates } from "../../../src/bundle/helm.ts";
import { imageRepository, releaseOptions } from "../../../src/bundle/release.ts";
import { runFinalizerPolicyApi, runFinalizerPolicyKinds } from "../../../src/bundle/run-finalizer.ts";
import { placeCrdConversion } from "../../../src/bundle/webhook.ts";
import { binaryPaths } from "../../../src/dev/binaries.ts";
import { RestClient } from "../../../src/kube/rest.ts";
import { generatedFiles, valuesFile, valuesPath } from "../../../tools/gen/files.ts";
import { adminConfig, testNamespace } from "../../support/cluster.ts";
import { installCrds } from "../../support/crds.ts";

// biome-ignore lint/suspicious/noExplicitAny: test drills into rendered objects
type Any = any;

const run = promisify(execFile);
/** The chart as the generator makes it now (the stale check compares it with deploy/), in a temp dir. */
async function generatedChart(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "slipway-chart-"));
  onTestFinished(() => rm(dir, { recursive: true, force: true }));
  const options = releaseOptions();
  const files = generatedFiles(options);
  files.set(valuesPath, valuesFile(undefined, options));
  for (const [path, content] of files) {
    if (!path.startsWith(`${chartDir}/`)) continue;
    const target = join(dir, path.slice(chartDir.length + 1));
    await mkdir(dirname(target), { recursive: true });
    await writeFile(target, content);
  }
  return dir;
}
const helm = (...args: string[]) => run(binaryPaths().helm, args, { encoding: "utf8", maxBuffer: 64 << 20 });

function withoutHelmLabels(object: BundleObject): BundleObject {
  const strip = (labels?: Record<string, string>) =>
    labels && Object.fromEntries(Object.entries(labels).filter(([key]) => !helmLabels.includes(key)));
  const copy = structuredClone(object) as BundleObject & {
    spec?: { template?: { metadata?: { labels?: Record<string, string> } } };
  };
  if (copy.metadata?.labels) copy.metadata.labels = strip(copy.metadata.labels);
  const podMeta = copy.spec?.template?.metadata;
  if (podMeta?.labels) podMeta.labels = strip(podMeta.labels);
  return copy;
}

/**
 * The objects `helm template` renders from this generator's files (crds/ and its own templates), for
 * a cluster serving the Run finalizer policy's API (as Kubernetes 1.36 does) unless `apis` says less.
 */
async function render(namespace: string, ...set: string[]): Promise<BundleObject[]> {
  return renderFor([runFinalizerPolicyApi], namespace, ...set);
}

async function renderFor(apis: string[], namespace: string, ...set: string[]): Promise<BundleObject[]> {
  const { stdout } = await helm(
    "template",
    "slipway",
    await generatedChart(),
    "--namespace",
    namespace,
    "--include-crds",
    ...apis.flatMap((api) => ["--api-versions", api]),
    ...set.flatMap((s) => ["--set", s]),
  );
  return stdout
    .split(/^---$/m)
    .filter((doc) => {
      const source = /^# Source: slipway\/(.+)$/m.exec(doc)?.[1] ?? "";
      return source.startsWith("crds/") || ownedTemplates.includes(source);
    })
    .flatMap((doc) => parseAllDocuments(doc).map((d) => d.toJS() as BundleObject))
    .filter(Boolean)
    .map(withoutHelmLabels);
}

const byKindAndName = (a: BundleObject, b: BundleObject) =>
  `${a.kind}/${a.metadata?.namespace}/${a.metadata?.name}`.localeCompare(
    `${b.kind}/${b.metadata?.namespace}/${b.metadata?.name}`,
  );

/**
 * The bundle's objects a chart renders: all but the Namespace (Helm installs into an existing one),
 * the CRDs' conversion naming the operator's Service in the default namespace: Helm never templates
 * crds/, and the operator points the conversion at its own namespace when it starts
 * (src/webhook/crd-conversion.ts; test/integration/apis/versions.test.ts).
 */
const chartObjects = (objects: BundleObject[]) =>
  objects
    .filter((o) => o.kind !== "Namespace")
    .map((o) => (o.kind === "CustomResourceDefinition" ? placeCrdConversion(o, defaultNamespace) : o))
    .sort(byKindAndName);

describe("the Helm chart", () => {
  it("passes helm lint --strict", async () => {
    const { stdout } = await helm("lint", "--strict", await generatedChart());
    expect(stdout).toContain("0 chart(s) failed");
  });

  it("as committed, with every engineer's templates, passes helm lint --strict and renders", async () => {
    const committed = join(import.meta.dirname, "../../..", chartDir);
    expect((await helm("lint", "--strict", committed)).stdout).toContain("0 chart(s) failed");
    const { stdout } = await helm("template", "slipway", committed, "--namespace", "ml", "--include-crds");
    const kinds = parseAllDocuments(stdout).map((d) => (d.toJS() as BundleObject | null)?.kind);
    expect(kinds).toContain("Deployment");
  });

  it("renders exactly the bundle's objects with the default values", async () => {
    const rendered = await render("ml-platform");
    const bundle = bundleFor("ml-platform", releaseOptions());
    expect(rendered.sort(byKindAndName)).toEqual(chartObjects(bundle));
  });

  it("renders the bundle serving the namespaces given, or all of them", async () => {
    const listed = await render("ops", "namespaces={team-a,team-b}");
    expect(listed.sort(byKindAndName)).toEqual(
      chartObjects(bundleFor("ops", releaseOptions({ serves: ["team-a", "team-b"] }))),
    );
    const all = await render("ops", "allNamespaces=true");
    expect(all.sort(byKindAndName)).toEqual(
      chartObjects(bundleFor("ops", releaseOptions({ serves: "all" }))),
    );
  });

  it("renders the bundle of a Provider ServiceAccount allowlist: token requests by its names, each way of serving", async () => {
    const allowlist = ["team-a/runner", "*/runner", "ops/kfp-client"];
    const set = `providerServiceAccounts={${allowlist.join(",")}}`;
    const cases: [string[], BundleOptions["serves"]][] = [
      [[], undefined],
      [["namespaces={team-a,team-b}"], ["team-a", "team-b"]],
      [["allNamespaces=true"], "all"],
    ];
    for (const [values, serves] of cases) {
      const rendered = await render("ops", set, ...values);
      const bundle = bundleFor("ops", releaseOptions({ providerServiceAccounts: allowlist, serves }));
      expect(rendered.sort(byKindAndName)).toEqual(chartObjects(bundle));
      expect(JSON.stringify(rendered)).toContain('"resourceNames":["kfp-client","runner"]');
    }
  });

  it("renders the Run finalizer policy bound to the served namespaces, and none where the cluster lacks its API", async () => {
    const binding = (objects: BundleObject[]) =>
      objects.find((o) => o.kind === "MutatingAdmissionPolicyBinding")?.spec as Record<string, unknown>;
    const selected = (objects: BundleObject[]) =>
      (binding(objects).matchResources as { namespaceSelector?: unknown }).namespaceSelector;
    const inValues = (values: string[]) => ({
      matchExpressions: [{ key: "kubernetes.io/metadata.name", operator: "In", values }],
    });
    const own = await render("ops");
    expect(binding(own).policyName).toBe("slipway-run-finalizer-ops");
    expect(selected(own)).toEqual(inValues(["ops"]));
    expect(selected(await render("ops", "namespaces={team-a,team-b}"))).toEqual(
      inValues(["team-a", "team-b"]),
    );
    expect(selected(await render("ops", "allNamespaces=true"))).toBeUndefined();

    const older = await renderFor([], "ops");
    expect(older.filter((o) => runFinalizerPolicyKinds.includes(o.kind ?? ""))).toEqual([]);
    expect(older).toEqual(own.filter((o) => !runFinalizerPolicyKinds.includes(o.kind ?? "")));
  });

  it("renders the operator's priority level and FlowSchema for the release namespace, whatever it serves", async () => {
    for (const values of [[], ["namespaces={team-a,team-b}"], ["allNamespaces=true"]]) {
      const rendered = (await render("ops", ...values)).filter((o) =>
        flowControlKinds.includes(o.kind ?? ""),
      ) as Any[];
      // Helm orders kinds it does not know by name: the schema may come first (dangling for a moment)
      expect(rendered.map((o) => `${o.kind}/${o.metadata.name}`).sort()).toEqual([
        "FlowSchema/slipway-operator-ops",
        "PriorityLevelConfiguration/slipway-operator-ops",
      ]);
      const schema = rendered.find((o) => o.kind === "FlowSchema").spec;
      expect(schema.priorityLevelConfiguration.name).toBe("slipway-operator-ops");
      expect(schema.rules[0].subjects).toEqual([
        { kind: "ServiceAccount", serviceAccount: { name: "slipway-operator", namespace: "ops" } },
      ]);
    }
  });

  it("renders the bundle of the values given", async () => {
    const rendered = await render(
      "other",
      "image.tag=9.9.9",
      "replicas=2",
      "logLevel=debug",
      "resources.limits.memory=1Gi",
    );
    const bundle = bundleFor(
      "other",
      releaseOptions({
        image: `${imageRepository}:9.9.9`,
        replicas: 2,
        logLevel: "debug",
        resources: { requests: { cpu: "100m", memory: "128Mi" }, limits: { memory: "1Gi" } },
      }),
    );
    expect(rendered.sort(byKindAndName)).toEqual(chartObjects(bundle));
  });
});

/** templates/platform.yaml of the committed chart (hand-written), rendered with `set`. */
async function renderedPlatform(namespace: string, ...set: string[]): Promise<BundleObject[]> {
  const committed = join(import.meta.dirname, "../../..", chartDir);
  const { stdout } = await helm(
    "template",
    "slipway",
    committed,
    "--namespace",
    namespace,
    ...set.flatMap((s) => ["--set", s]),
  );
  return parseAllDocuments(stdout)
    .map((d) => d.toJS() as BundleObject | null)
    .filter((o): o is BundleObject => o?.kind === "Platform");
}

describe("the Helm chart's Platform", () => {
  it("renders none by default, and with values.platform the Ingress's host and TLS the API server accepts", async () => {
    await installCrds([PlatformKind]);
    const namespace = await testNamespace("chart");
    expect(await renderedPlatform(namespace)).toEqual([]);
    const [platform, ...more] = await renderedPlatform(
      namespace,
      "platform.enabled=true",
      "platform.spec.host=ml.example.com",
      "platform.spec.ingress.tls.secretName=ml-tls",
    );
    expect(more).toEqual([]);
    expect(platform?.metadata).toMatchObject({
      name: "slipway",
      namespace,
      annotations: { "helm.sh/resource-policy": "keep" },
    });
    expect((platform as { spec?: unknown }).spec).toEqual({
      host: "ml.example.com",
      ingress: { tls: { secretName: "ml-tls" } },
    });
    const rest = new RestClient(adminConfig());
    try {
      const path = `/apis/${PlatformKind.apiVersion}/namespaces/${namespace}/${PlatformKind.plural}`;
      const created = await rest.request<{ spec: { host?: string } }>("POST", path, { body: platform });
      expect(created.spec.host).toBe("ml.example.com");
      // a host the chart passes through as given is the CRD's to refuse, naming the field
      const [bad] = await renderedPlatform(namespace, "platform.enabled=true", "platform.spec.host=ML_host");
      const refused = await rest.request("POST", path, { body: bad, query: { dryRun: "All" } }).then(
        () => "accepted",
        (error: unknown) => String(error instanceof Error ? error.message : error),
      );
      expect(refused).toContain("spec.host must be a DNS-1123 host name");
    } finally {
      rest.close();
    }
  });
});
