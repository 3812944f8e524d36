import type { V1Container, V1Job } from "@kubernetes/client-node";
import { describe, expect, it } from "vitest";
import { defaultBuildahImage, defaultFetcherImage, parseBuildsConfig } from "../../../src/builds/config.ts";
import { renderKanikoJob } from "../../../src/builds/kaniko-job.ts";
import { parseImageReference } from "../../../src/builds/naming.ts";
import { combinations, renderSample, sampleBuild } from "../../support/builds/samples.ts";

const storage = ["--root=/var/lib/buildah/storage", "--runroot=/var/lib/buildah/run", "--storage-driver=vfs"];

function containers(job: V1Job): Record<string, V1Container> {
  const pod = job.spec?.template.spec;
  return Object.fromEntries(
    [...(pod?.initContainers ?? []), ...(pod?.containers ?? [])].map((c) => [c.name, c]),
  );
}

describe("the Kaniko Job", () => {
  for (const combination of combinations) {
    const title = `${combination.registry} registry × ${combination.storage} × ${combination.credentials ? "with" : "without"} credentials`;
    it(`${title}: whole spec`, () => {
      const job = renderSample(combination);
      expect(job).toMatchSnapshot();
      const pod = job.spec?.template.spec;
      const volumeNames = pod?.volumes?.map((v) => v.name) ?? [];
      expect(new Set(volumeNames).size).toBe(volumeNames.length);
      for (const container of [...(pod?.initContainers ?? []), ...(pod?.containers ?? [])]) {
        for (const mount of container.volumeMounts ?? []) expect(volumeNames).toContain(mount.name);
      }
    });
  }

  it("mounts registry and cloud credentials together under distinct volume names", () => {
    const pod = renderSample({ registry: "google", storage: "gcs", credentials: true }).spec?.template.spec;
    expect(pod?.volumes?.map((v) => v.name)).toEqual([
      "workspace",
      "registry-credentials",
      "storage-credentials",
      "image",
      "buildah-storage",
      "registry-login",
    ]);
    expect(pod?.volumes?.find((v) => v.name === "registry-credentials")?.secret?.secretName).toBe(
      "registry-creds",
    );
    expect(pod?.volumes?.find((v) => v.name === "storage-credentials")?.secret?.secretName).toBe("gcs-key");
  });

  it("with a docker credential: Kaniko builds without pushing and holds no credential; only the steps that push the archive have it", () => {
    const job = renderSample({ registry: "docker", storage: "s3", credentials: true });
    const pod = job.spec?.template.spec;
    expect(pod?.initContainers?.map((c) => c.name)).toEqual(["fetch-artifact", "kaniko", "load"]);
    expect(pod?.containers.map((c) => c.name)).toEqual(["push"]);
    const { kaniko, load, push } = containers(job);
    const holders = Object.values(containers(job))
      .filter((c) => JSON.stringify(c).match(/registry-credentials|\/kaniko\/\.docker|authfile/))
      .map((c) => c.name);
    expect(holders).toEqual(["push"]);
    expect(kaniko?.args).toEqual(
      expect.arrayContaining([
        "--destination=registry.example.com/ml/ml/fraud-scorer:v1",
        "--no-push",
        "--tar-path=/image/image.tar",
      ]),
    );
    // the layer cache would be pushed from the build: none without a credential there
    expect(kaniko?.args?.some((a) => a.startsWith("--cache"))).toBe(false);
    expect(kaniko?.volumeMounts).toContainEqual({ name: "image", mountPath: "/image" });
    expect(load?.image).toBe(defaultBuildahImage);
    expect([...(load?.command ?? []), ...(load?.args ?? [])]).toEqual([
      "buildah",
      ...storage,
      "pull",
      "--quiet",
      "docker-archive:/image/image.tar",
    ]);
    expect(load?.volumeMounts).toContainEqual({ name: "image", mountPath: "/image", readOnly: true });
    expect([...(push?.command ?? []), ...(push?.args ?? [])]).toEqual([
      "buildah",
      ...storage,
      "push",
      "--digestfile=/dev/termination-log",
      "--authfile=/secrets/registry/config.json",
      "registry.example.com/ml/ml/fraud-scorer:v1",
      "docker://registry.example.com/ml/ml/fraud-scorer:v1",
    ]);
    expect(push?.volumeMounts).toContainEqual({
      name: "registry-credentials",
      mountPath: "/secrets/registry",
      readOnly: true,
    });
    expect(pod?.volumes).toContainEqual({
      name: "registry-credentials",
      secret: { secretName: "registry-creds", items: [{ key: ".dockerconfigjson", path: "config.json" }] },
    });
    for (const step of [load, push]) expect(step?.securityContext?.runAsNonRoot).toBe(true);
    expect(pod?.initContainers?.[0]?.envFrom).toEqual([{ secretRef: { name: "s3-creds" } }]);
  });

  it("with per-build credentials (registry.scopedCredentials): Kaniko holds none; push holds the Job's own, never the registry's Secret", () => {
    const config = parseBuildsConfig({
      registry: {
        url: "registry.example.com/ml",
        credentialsSecret: "registry-creds",
        scopedCredentials: { secret: "registry-creds", key: "build-credentials-key" },
      },
      storage: { type: "s3", s3: {} },
    });
    const job = renderKanikoJob({
      build: sampleBuild(),
      image: parseImageReference("registry.example.com/ml/ml/fraud-scorer:v1"),
      artifact: { scheme: "s3", bucket: "models", key: "fraud/scorer/v1" },
      config,
      namespace: "ml",
    });
    expect(JSON.stringify(job)).not.toContain("registry-creds");
    const all = containers(job);
    expect(all.kaniko?.args).toContain("--no-push");
    const holders = Object.values(all)
      .filter((c) => JSON.stringify(c).match(/registry-credentials|\/kaniko\/\.docker|authfile/))
      .map((c) => c.name);
    expect(holders).toEqual(["push"]);
    expect(job.spec?.template.spec?.volumes).toContainEqual({
      name: "registry-credentials",
      secret: {
        secretName: `${job.metadata?.name}-registry`,
        items: [{ key: ".dockerconfigjson", path: "config.json" }],
      },
    });
  });

  it("with a Google key: Kaniko builds without it; registry-login alone holds the key and leaves push an access token in memory", () => {
    const job = renderSample({ registry: "google", storage: "s3", credentials: true });
    const pod = job.spec?.template.spec;
    expect(pod?.initContainers?.map((c) => c.name)).toEqual([
      "fetch-artifact",
      "kaniko",
      "load",
      "registry-login",
    ]);
    expect(pod?.containers.map((c) => c.name)).toEqual(["push"]);
    const all = containers(job);
    const keyHolders = Object.values(all)
      .filter((c) => c.volumeMounts?.some((m) => m.name === "registry-credentials"))
      .map((c) => c.name);
    expect(keyHolders).toEqual(["registry-login"]);
    expect(JSON.stringify(all.kaniko)).not.toMatch(
      /GOOGLE_APPLICATION_CREDENTIALS|registry-credentials|registry-login/,
    );
    expect(all.kaniko?.args).toContain("--no-push");
    const login = all["registry-login"];
    expect(login?.image).toBe(defaultFetcherImage);
    expect([...(login?.command ?? []), ...(login?.args ?? [])]).toEqual([
      "/nodejs/bin/node",
      "dist/builds/registry-login.js",
      "--registry=europe-docker.pkg.dev",
      "/secrets/registry/key.json",
      "/login/config.json",
    ]);
    expect(login?.securityContext).toMatchObject({ runAsNonRoot: true, capabilities: { drop: ["ALL"] } });
    expect(login?.volumeMounts).toContainEqual({ name: "registry-login", mountPath: "/login" });
    // push reads the login's docker config where it reads a docker credential, and nothing else of it
    expect(all.push?.args).toContain("--authfile=/secrets/registry/config.json");
    expect(all.push?.volumeMounts).toContainEqual({
      name: "registry-login",
      mountPath: "/secrets/registry",
      readOnly: true,
    });
    expect(pod?.volumes).toContainEqual({ name: "registry-login", emptyDir: { medium: "Memory" } });
    expect(pod?.volumes).toContainEqual({
      name: "registry-credentials",
      secret: { secretName: "registry-creds", items: [{ key: "key.json", path: "key.json" }] },
    });
  });

  it("without a credential (a registry that takes anonymous pushes), Kaniko pushes itself", () => {
    for (const registry of ["docker", "google"] as const) {
      const pod = renderSample({ registry, storage: "s3", credentials: false }).spec?.template.spec;
      expect(pod?.containers.map((c) => c.name)).toEqual(["kaniko"]);
      expect(pod?.containers[0]?.args).not.toContain("--no-push");
    }
  });

  it("passes secret build args through env from the Secret, never as a literal", () => {
    const { kaniko } = containers(renderSample({ registry: "docker", storage: "s3", credentials: true }));
    expect(kaniko?.args).toContain("--build-arg=MODEL_FORMAT=onnx");
    expect(kaniko?.args).toContain("--build-arg=PIP_TOKEN");
    expect(kaniko?.args?.some((a) => a.startsWith("--build-arg=PIP_TOKEN="))).toBe(false);
    expect(kaniko?.env).toContainEqual({
      name: "PIP_TOKEN",
      valueFrom: { secretKeyRef: { name: "pip", key: "token" } },
    });
  });

  it("sets deadline, backoff, TTL, termination message, safe-to-evict, 8Gi and the namespace's cache", () => {
    const job = renderSample(
      { registry: "docker", storage: "s3", credentials: false },
      sampleBuild({ timeout: "1h30m", backoffLimit: 4 }),
    );
    expect(job.spec?.activeDeadlineSeconds).toBe(5400);
    expect(job.spec?.backoffLimit).toBe(4);
    expect(job.spec?.ttlSecondsAfterFinished).toBe(3600);
    expect(job.spec?.template.metadata?.annotations).toEqual({
      "cluster-autoscaler.kubernetes.io/safe-to-evict": "false",
    });
    const kaniko = job.spec?.template.spec?.containers[0];
    expect(kaniko?.terminationMessagePolicy).toBe("FallbackToLogsOnError");
    expect(kaniko?.resources).toEqual({ requests: { cpu: "1", memory: "2Gi" }, limits: { memory: "8Gi" } });
    expect(kaniko?.args).toEqual(
      expect.arrayContaining(["--cache=true", "--cache-repo=registry.example.com/ml/ml/kaniko-cache"]),
    );
    expect(job.metadata?.labels?.team).toBe("risk");
    expect(job.metadata?.name?.length).toBeLessThanOrEqual(63);
  });

  it("uses the spec's defaults: 30m timeout, 2 retries; spec resources override the platform's per key", () => {
    const job = renderSample(
      { registry: "docker", storage: "s3", credentials: false },
      sampleBuild({ resources: { limits: { memory: "12Gi" } } }),
    );
    expect(job.spec?.activeDeadlineSeconds).toBe(1800);
    expect(job.spec?.backoffLimit).toBe(2);
    expect(job.spec?.template.spec?.containers[0]?.resources?.limits).toEqual({ memory: "12Gi" });
  });

  it("fills the workspace with Slipway's fetcher, passing it the artifact limits; over them the Job fails at once", () => {
    const job = renderSample({ registry: "docker", storage: "s3", credentials: false });
    const s3 = job.spec?.template.spec?.initContainers?.[0];
    expect(s3?.image).toBe(defaultFetcherImage);
    expect([...(s3?.command ?? []), ...(s3?.args ?? [])]).toEqual([
      "/nodejs/bin/node",
      "dist/builds/fetch-artifact.js",
      "--max-bytes=2Gi",
      "--max-objects=10000",
      `--storage=${JSON.stringify({ type: "s3", s3: { endpoint: "http://minio.storage:9000", region: "eu-west-1", forcePathStyle: true }, gcs: {} })}`,
      "s3://models/fraud/scorer/v1",
      "/workspace",
    ]);
    expect(job.spec?.podFailurePolicy?.rules).toEqual([
      { action: "FailJob", onExitCodes: { containerName: "fetch-artifact", operator: "In", values: [3] } },
    ]);
    const gcs = renderSample({ registry: "docker", storage: "gcs", credentials: true }).spec?.template.spec
      ?.initContainers?.[0];
    expect(gcs?.args?.slice(-2)).toEqual(["gs://models/fraud/scorer/v1", "/workspace"]);
    expect(gcs?.env).toContainEqual({
      name: "GOOGLE_APPLICATION_CREDENTIALS",
      value: "/secrets/storage/key.json",
    });
  });

  it("is owned by its build as controller, and refuses a build without a uid rather than an empty owner", () => {
    const combination = { registry: "docker", storage: "s3", credentials: false } as const;
    expect(renderSample(combination).metadata?.ownerReferences).toEqual([
      {
        apiVersion: "builds.slipway.dev/v1beta1",
        kind: "ImageBuild",
        name: "scorer",
        uid: "uid-1",
        controller: true,
        blockOwnerDeletion: true,
      },
    ]);
    const build = sampleBuild();
    delete build.metadata.uid;
    expect(() => renderSample(combination, build)).toThrow(/uid/);
  });
});
