/** The chart's `builds` values: a ConfigMap the operator's configuration parser accepts, mounted by the operator. */
import { execFile } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import type { V1ConfigMap, V1Deployment } from "@kubernetes/client-node";
import { describe, expect, it, onTestFinished } from "vitest";
import { parseAllDocuments, parse as parseYaml } from "yaml";
import { parseBuildsConfig } from "../../../src/builds/config.ts";
import { imageBuildController } from "../../../src/builds/controller.ts";
import { chartDir } from "../../../src/bundle/helm.ts";
import { binaryPaths } from "../../../src/dev/binaries.ts";
import { packageRoot } from "../../../src/dev/paths.ts";
import type { KubeObject } from "../../../src/kube/types.ts";
import { controllerPermissions, mergeRules } from "../../../src/operator/rbac.ts";

const run = promisify(execFile);

async function render(
  values: Record<string, unknown>,
): Promise<{ kind?: string; metadata?: { name?: string } }[]> {
  const dir = await mkdtemp(join(tmpdir(), "slipway-helm-builds-"));
  onTestFinished(() => rm(dir, { recursive: true, force: true }));
  await writeFile(join(dir, "values.json"), JSON.stringify(values));
  const { stdout } = await run(
    binaryPaths().helm,
    ["template", "slipway", join(packageRoot, chartDir), "--namespace", "ml", "-f", join(dir, "values.json")],
    { encoding: "utf8", maxBuffer: 64 << 20 },
  );
  return parseAllDocuments(stdout)
    .map((d) => d.toJS())
    .filter(Boolean);
}

const builds = {
  registry: { url: "registry.example.com/ml", credentialsSecret: "registry-creds" },
  storage: { type: "s3", s3: { region: "eu-west-1", forcePathStyle: true, credentialsSecret: "s3-creds" } },
  kaniko: { resources: { limits: { memory: "12Gi" } } },
  buildNamespace: "ml-builds",
};

describe("the Helm chart's builds values", () => {
  it("render a ConfigMap whose config.yaml parses as the operator's configuration, mounted by the operator", async () => {
    const objects = await render({ builds });
    const configMap = objects.find((o) => o.kind === "ConfigMap") as V1ConfigMap | undefined;
    const deployment = objects.find((o) => o.kind === "Deployment") as V1Deployment | undefined;
    const text = configMap?.data?.["config.yaml"];
    expect(text).toBeDefined();
    expect(parseBuildsConfig(parseYaml(text ?? ""))).toEqual(parseBuildsConfig(builds));

    const pod = deployment?.spec?.template.spec;
    const operator = pod?.containers.find((c) => c.name === "operator");
    const path = operator?.env?.find((e) => e.name === "SLIPWAY_BUILDS_CONFIG")?.value ?? "";
    const volume = pod?.volumes?.find((v) => v.configMap?.name === configMap?.metadata?.name);
    const mount = operator?.volumeMounts?.find((m) => m.name === volume?.name);
    expect(mount?.readOnly).toBe(true);
    expect(path).toBe(`${mount?.mountPath}/config.yaml`);
    expect(deployment?.spec?.template.metadata?.annotations?.["checksum/builds-config"]).toMatch(
      /^[0-9a-f]{64}$/,
    );
  });

  it("with buildNamespace: a Role there with exactly the controller's rules on Jobs, pods and Secrets, bound to the operator", async () => {
    const objects = (await render({ builds })) as (KubeObject & { rules?: unknown; subjects?: unknown })[];
    const role = objects.find((o) => o.kind === "Role" && o.metadata?.namespace === "ml-builds");
    const binding = objects.find((o) => o.kind === "RoleBinding" && o.metadata?.namespace === "ml-builds");
    const buildKinds = ["jobs", "pods", "secrets"];
    const expected = mergeRules(
      controllerPermissions(imageBuildController({ config: undefined })).filter(
        (p) => buildKinds.includes(p.type.plural) && !p.subresource,
      ),
    );
    expect(role?.rules).toEqual(expected);
    expect(binding?.subjects).toEqual([
      { kind: "ServiceAccount", name: "slipway-operator", namespace: "ml" },
    ]);
  });

  it("without builds: no ConfigMap, and the operator mounts none", async () => {
    const objects = await render({});
    expect(objects.filter((o) => o.kind === "ConfigMap")).toEqual([]);
    const deployment = objects.find((o) => o.kind === "Deployment") as V1Deployment | undefined;
    const operator = deployment?.spec?.template.spec?.containers[0];
    expect(operator?.env?.map((e) => e.name)).not.toContain("SLIPWAY_BUILDS_CONFIG");
    expect(deployment?.spec?.template.spec?.volumes?.map((v) => v.name)).toEqual(["tmp"]);
  });
});
