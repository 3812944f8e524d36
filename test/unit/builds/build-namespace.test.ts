import { describe, expect, it } from "vitest";
import { parseBlobUri } from "../../../src/builds/blob-uri.ts";
import {
  buildArgsSecretName,
  buildOfCrossNamespaceJob,
  jobNamespace,
  ownerLabels,
  ownerNameAnnotation,
} from "../../../src/builds/build-namespace.ts";
import { parseBuildsConfig } from "../../../src/builds/config.ts";
import { renderKanikoJob } from "../../../src/builds/kaniko-job.ts";
import { parseImageReference } from "../../../src/builds/naming.ts";
import { sampleBuild, sampleConfig } from "../../support/builds/samples.ts";

const base = sampleConfig({ registry: "docker", storage: "s3", credentials: true });
const shared = parseBuildsConfig({ ...base, buildNamespace: "builds" });
const render = (namespace: string) =>
  renderKanikoJob({
    build: sampleBuild({ buildArgs: [] }),
    image: parseImageReference("registry.example.com/ml/fraud-scorer:v1"),
    artifact: parseBlobUri("s3://models/fraud/scorer/v1"),
    config: shared,
    namespace,
  });

describe("buildNamespace", () => {
  it("Jobs run in the build namespace when one is configured, else in the build's own", () => {
    expect(jobNamespace("ml", base)).toBe("ml");
    expect(jobNamespace("ml", shared)).toBe("builds");
  });

  it("a Job in another namespace has no owner reference but labels and an annotation naming its build", () => {
    const job = render("builds");
    expect(job.metadata?.ownerReferences).toBeUndefined();
    expect(job.metadata?.labels).toMatchObject({ [ownerLabels.namespace]: "ml", [ownerLabels.uid]: "uid-1" });
    expect(job.metadata?.annotations?.[ownerNameAnnotation]).toBe("scorer");
    expect(buildOfCrossNamespaceJob(job)).toEqual({ namespace: "ml", name: "scorer" });
  });

  it("a Job in the build's own namespace is owned by reference, with no tie", () => {
    const job = render("ml");
    expect(job.metadata?.ownerReferences?.[0]).toMatchObject({
      kind: "ImageBuild",
      uid: "uid-1",
      controller: true,
    });
    expect(job.metadata?.labels?.[ownerLabels.uid]).toBeUndefined();
    expect(buildOfCrossNamespaceJob(job)).toBeUndefined();
  });

  it("a Job in another namespace takes secret build arguments from the copy next to it, by argument name", () => {
    const job = renderKanikoJob({
      build: sampleBuild(),
      image: parseImageReference("registry.example.com/ml/fraud-scorer:v1"),
      artifact: parseBlobUri("s3://models/fraud/scorer/v1"),
      config: shared,
      namespace: "builds",
    });
    const env = job.spec?.template.spec?.containers[0]?.env ?? [];
    expect(env.find((e) => e.name === "PIP_TOKEN")?.valueFrom?.secretKeyRef).toEqual({
      name: buildArgsSecretName(job.metadata?.name ?? ""),
      key: "PIP_TOKEN",
    });
    expect(buildArgsSecretName(job.metadata?.name ?? "")).toBe(`${job.metadata?.name}-args`);
  });
});
