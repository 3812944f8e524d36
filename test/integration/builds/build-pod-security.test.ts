/**
 * The build pods' hardening as the real API server sees it: server-side dry-runs of the rendered
 * Jobs' pods in namespaces enforcing Pod Security. Kaniko's pod (root, with only the file-owner and
 * user-switching capabilities) meets `baseline`; the buildah pod too (docs/builds.md says why not
 * `restricted`); no build pod gets a ServiceAccount token.
 */
import { CoreV1Api, type V1Pod } from "@kubernetes/client-node";
import { describe, expect, it } from "vitest";
import { renderSample, sampleBuild } from "../../support/builds/samples.ts";
import { adminConfig, testNamespace } from "../../support/cluster.ts";

async function enforcing(level: "baseline" | "restricted"): Promise<string> {
  const namespace = await testNamespace(`ib-${level}`);
  await adminConfig()
    .makeApiClient(CoreV1Api)
    .patchNamespace({
      name: namespace,
      body: [{ op: "add", path: "/metadata/labels/pod-security.kubernetes.io~1enforce", value: level }],
    });
  return namespace;
}

/** The pod a rendered Job would make, created with dryRun in `namespace`; the API server's refusal, or undefined. */
async function dryRunPod(backend: "kaniko" | "buildah", namespace: string): Promise<string | undefined> {
  const job = renderSample({ registry: "docker", storage: "s3", credentials: true }, sampleBuild(), backend);
  const template = job.spec?.template;
  const pod: V1Pod = { metadata: { name: `dry-${backend}`, namespace }, spec: template?.spec };
  expect(pod.spec?.automountServiceAccountToken).toBe(false);
  try {
    await adminConfig().makeApiClient(CoreV1Api).createNamespacedPod({ namespace, body: pod, dryRun: "All" });
    return undefined;
  } catch (error) {
    const body = (error as { body?: string }).body;
    return body ? (JSON.parse(body) as { message: string }).message : String(error);
  }
}

describe("build pods under Pod Security", () => {
  it("the Kaniko and buildah pods are admitted where `baseline` is enforced", async () => {
    const namespace = await enforcing("baseline");
    expect(await dryRunPod("kaniko", namespace)).toBeUndefined();
    expect(await dryRunPod("buildah", namespace)).toBeUndefined();
  });

  it("`restricted` refuses the Kaniko pod for its root user and capabilities, not for its artifact fetcher", async () => {
    const namespace = await enforcing("restricted");
    const refusal = await dryRunPod("kaniko", namespace);
    expect(refusal).toMatch(/violates PodSecurity "restricted/);
    expect(refusal).toContain('container "kaniko" must not set runAsUser=0');
    expect(refusal).not.toContain("fetch-artifact");
  });
});
