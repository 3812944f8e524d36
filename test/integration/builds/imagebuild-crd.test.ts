import { CustomObjectsApi } from "@kubernetes/client-node";
import { beforeAll, describe, expect, it } from "vitest";
import { ImageBuildKind } from "../../../src/apis/builds/imagebuild.ts";
import { adminConfig, testNamespace } from "../../support/cluster.ts";
import { installCrds } from "../../support/crds.ts";

const spec = { project: "fraud", name: "scorer", version: "v1", artifactUri: "s3://models/fraud/v1" };

async function create(namespace: string, body: Record<string, unknown>) {
  const api = adminConfig().makeApiClient(CustomObjectsApi);
  return api.createNamespacedCustomObject({
    group: ImageBuildKind.group,
    version: ImageBuildKind.version,
    namespace,
    plural: ImageBuildKind.plural,
    body: {
      apiVersion: ImageBuildKind.apiVersion,
      kind: ImageBuildKind.kind,
      metadata: { name: "b" },
      spec: body,
    },
  });
}

async function refusal(namespace: string, body: Record<string, unknown>): Promise<string> {
  try {
    await create(namespace, body);
  } catch (error) {
    return String((error as { body?: unknown }).body ?? error);
  }
  throw new Error("the API server accepted an invalid ImageBuild");
}

describe("the ImageBuild CRD", () => {
  beforeAll(() => installCrds([ImageBuildKind]));

  it("accepts a valid build and refuses bad input naming the field", async () => {
    const namespace = await testNamespace("ib-crd");
    expect(await refusal(namespace, { ...spec, artifactUri: "https://models/fraud" })).toMatch(
      /spec\.artifactUri/,
    );
    expect(await refusal(namespace, { ...spec, timeout: "ten minutes" })).toMatch(/spec\.timeout/);
    expect(
      await refusal(namespace, {
        ...spec,
        buildArgs: [{ name: "TOKEN", value: "x", valueFrom: { secretKeyRef: { name: "s", key: "k" } } }],
      }),
    ).toMatch(/exactly one of value or valueFrom/);
    expect(await refusal(namespace, { ...spec, buildArgs: [{ name: "TOKEN" }] })).toMatch(
      /exactly one of value or valueFrom/,
    );
    expect(await refusal(namespace, { ...spec, project: "Fraud" })).toMatch(/spec\.project/);
    const created = (await create(namespace, {
      ...spec,
      buildArgs: [{ name: "TOKEN", valueFrom: { secretKeyRef: { name: "s", key: "k" } } }],
    })) as {
      metadata: { uid: string };
    };
    expect(created.metadata.uid).toBeTruthy();
  });

  it("refuses absurd timeouts, non-quantities, malformed and reserved label keys, and a Dockerfile leaving the context", async () => {
    const namespace = await testNamespace("ib-crd");
    expect(await refusal(namespace, { ...spec, timeout: "99999999999999999999999999999h" })).toMatch(
      /spec\.timeout/,
    );
    expect(await refusal(namespace, { ...spec, timeout: "169h" })).toMatch(
      /spec\.timeout: Invalid value.*a duration from 1s to 168h/,
    );
    expect(await refusal(namespace, { ...spec, timeout: "0s" })).toMatch(/a duration from 1s to 168h/);
    expect(await refusal(namespace, { ...spec, resources: { limits: { memory: "lots" } } })).toMatch(
      /spec\.resources\.limits: Invalid value.*every value is a quantity/,
    );
    expect(await refusal(namespace, { ...spec, labels: { "bad key!": "x" } })).toMatch(
      /spec\.labels: Invalid value.*label keys are qualified names/,
    );
    expect(await refusal(namespace, { ...spec, labels: { team: "not a value" } })).toMatch(/spec\.labels/);
    for (const key of [
      "builds.slipway.dev/build-uid",
      "job-name",
      "batch.kubernetes.io/job-name",
      "app.kubernetes.io/managed-by",
    ])
      expect(await refusal(namespace, { ...spec, labels: { [key]: "x" } })).toMatch(
        /spec\.labels: Forbidden.*are reserved/,
      );
    expect(await refusal(namespace, { ...spec, dockerfile: "../secrets/Dockerfile" })).toMatch(
      /spec\.dockerfile.*no '\.\.'/,
    );
    await create(namespace, {
      ...spec,
      timeout: "1h30m",
      resources: { requests: { cpu: "500m" }, limits: { memory: "12Gi" } },
      labels: { team: "risk", "example.com/cost-center": "ml-42" },
      dockerfile: "docker/Dockerfile.gpu",
    });
  });
});
