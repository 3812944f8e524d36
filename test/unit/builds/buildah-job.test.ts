import type { V1Container, V1Job } from "@kubernetes/client-node";
import { describe, expect, it } from "vitest";
import { renderBuildahJob } from "../../../src/builds/buildah-job.ts";
import { parseBuildsConfig } from "../../../src/builds/config.ts";
import { parseImageReference } from "../../../src/builds/naming.ts";
import { type Combination, renderSample, sampleBuild } from "../../support/builds/samples.ts";

const withCredentials: Combination = { registry: "docker", storage: "s3", credentials: true };
const reference = "registry.example.com/ml/ml/fraud-scorer:v1";
const storage = ["--root=/var/lib/buildah/storage", "--runroot=/var/lib/buildah/run", "--storage-driver=vfs"];

const render = (combination = withCredentials, build = sampleBuild()) =>
  renderSample(combination, build, "buildah");

/** The buildah Job of the sample build under a configuration of its own, its Job in `namespace`. */
function renderWith(config: Record<string, unknown>, namespace = "ml"): V1Job {
  const parsed = parseBuildsConfig({ backend: "buildah", storage: { type: "s3", s3: {} }, ...config });
  return renderBuildahJob({
    build: sampleBuild(),
    image: parseImageReference(`${parsed.registry.url}/fraud-scorer:v1`),
    artifact: { scheme: "s3", bucket: "models", key: "fraud/scorer/v1" },
    config: parsed,
    namespace,
  });
}

function containers(job: V1Job): Record<string, V1Container> {
  const pod = job.spec?.template.spec;
  const all = [...(pod?.initContainers ?? []), ...(pod?.containers ?? [])];
  return Object.fromEntries(all.map((c) => [c.name, c]));
}

describe("the buildah Job", () => {
  for (const combination of [withCredentials, { ...withCredentials, credentials: false }]) {
    it(`${combination.credentials ? "with" : "without"} credentials: fetch, build, push; every mount names a volume once`, () => {
      const pod = render(combination).spec?.template.spec;
      expect(pod?.initContainers?.map((c) => c.name)).toEqual(["fetch-artifact", "build"]);
      expect(pod?.containers.map((c) => c.name)).toEqual(["push"]);
      const names = pod?.volumes?.map((v) => v.name) ?? [];
      expect(new Set(names).size).toBe(names.length);
      for (const container of [...(pod?.initContainers ?? []), ...(pod?.containers ?? [])])
        for (const mount of container.volumeMounts ?? []) expect(names).toContain(mount.name);
    });
  }

  it("runs buildah unprivileged: its non-root user, SETUID and SETGID only, nothing privileged", () => {
    const { build, push } = containers(render());
    for (const container of [build, push]) {
      expect(container?.securityContext).toEqual({
        runAsUser: 1000,
        runAsGroup: 1000,
        runAsNonRoot: true,
        capabilities: { drop: ["ALL"], add: ["SETUID", "SETGID"] },
      });
      expect(container?.env).toContainEqual({ name: "BUILDAH_ISOLATION", value: "chroot" });
    }
    expect(JSON.stringify(render())).not.toMatch(/privileged|SYS_ADMIN|hostPath/);
  });

  it("builds with chroot isolation and vfs storage; a secret build argument is named only, its value from the Secret", () => {
    const { build } = containers(render());
    expect(build?.command).toEqual(["buildah"]);
    expect(build?.args).toEqual([
      ...storage,
      "bud",
      "--isolation=chroot",
      "--file=/workspace/Dockerfile",
      `--tag=${reference}`,
      "--build-arg=MODEL_FORMAT=onnx",
      "--build-arg=PIP_TOKEN",
      "/workspace",
    ]);
    expect(build?.env).toContainEqual({
      name: "PIP_TOKEN",
      valueFrom: { secretKeyRef: { name: "pip", key: "token" } },
    });
    expect(build?.resources).toEqual({ requests: { cpu: "1", memory: "2Gi" }, limits: { memory: "8Gi" } });
  });

  it("pushes with the docker config Secret mounted read-only and writes the digest as its termination message", () => {
    const job = render();
    const { build, push } = containers(job);
    expect(push?.args).toEqual([
      ...storage,
      "push",
      "--digestfile=/dev/termination-log",
      "--authfile=/secrets/registry/config.json",
      reference,
      `docker://${reference}`,
    ]);
    expect(push?.terminationMessagePolicy).toBe("FallbackToLogsOnError");
    expect(job.spec?.template.spec?.volumes).toContainEqual({
      name: "registry-credentials",
      secret: { secretName: "registry-creds", items: [{ key: ".dockerconfigjson", path: "config.json" }] },
    });
    const credentials = { name: "registry-credentials", mountPath: "/secrets/registry", readOnly: true };
    expect(push?.volumeMounts).toContainEqual(credentials);
    expect(build?.volumeMounts).not.toContainEqual(credentials);
    expect(push?.volumeMounts).toContainEqual({ name: "buildah-storage", mountPath: "/var/lib/buildah" });
    expect(build?.volumeMounts).toContainEqual({ name: "buildah-storage", mountPath: "/var/lib/buildah" });
  });

  for (const baseImage of [undefined, "registry.example.com/ml/ml/base:1"])
    it(`${baseImage ? "with" : "without"} a base image: the push credential is in no step that runs the Dockerfile, only in those that pull the base and push`, () => {
      const job = render(withCredentials, sampleBuild(baseImage ? { baseImage } : {}));
      const all = containers(job);
      const holders = Object.values(all)
        .filter(
          (c) =>
            (c.volumeMounts ?? []).some((m) => m.name === "registry-credentials") ||
            (c.args ?? []).some((a) => a.startsWith("--authfile")),
        )
        .map((c) => c.name);
      expect(holders).toEqual(baseImage ? ["pull", "push"] : ["push"]);
      const bud = Object.values(all).filter((c) => c.args?.includes("bud"));
      expect(bud.map((c) => c.name)).toEqual(["build"]);
      expect(JSON.stringify(bud)).not.toMatch(/registry-creds|registry-credentials|\/secrets\/registry/);
    });

  it("pulls the base image with the credential before the build, which then uses that copy", () => {
    const base = "registry.example.com/ml/ml/base:1";
    const job = render(withCredentials, sampleBuild({ baseImage: base }));
    const pod = job.spec?.template.spec;
    expect(pod?.initContainers?.map((c) => c.name)).toEqual(["fetch-artifact", "pull", "build"]);
    const { pull, build } = containers(job);
    expect(pull?.command).toEqual(["buildah"]);
    expect(pull?.args).toEqual([
      ...storage,
      "pull",
      "--quiet",
      "--authfile=/secrets/registry/config.json",
      base,
    ]);
    expect(pull?.volumeMounts).toEqual([
      { name: "buildah-storage", mountPath: "/var/lib/buildah" },
      { name: "registry-credentials", mountPath: "/secrets/registry", readOnly: true },
    ]);
    expect(pull?.env).toEqual([{ name: "BUILDAH_ISOLATION", value: "chroot" }]);
    expect(build?.args).toContain("--pull=missing");
    expect(build?.args).toContain(`--build-arg=BASE_IMAGE=${base}`);
  });

  it("with no registry credential, no pull step: the build pulls its base itself", () => {
    const job = render({ ...withCredentials, credentials: false }, sampleBuild({ baseImage: "python:3.12" }));
    expect(job.spec?.template.spec?.initContainers?.map((c) => c.name)).toEqual(["fetch-artifact", "build"]);
    expect(containers(job).build?.args).not.toContain("--pull=missing");
  });

  it("fetches the artifact with the Kaniko Job's init step", () => {
    const build = sampleBuild();
    const fetch = containers(render(withCredentials, build))["fetch-artifact"];
    expect(fetch).toEqual(renderSample(withCredentials, build).spec?.template.spec?.initContainers?.[0]);
    expect(fetch?.envFrom).toEqual([{ secretRef: { name: "s3-creds" } }]);
    expect(fetch?.volumeMounts).toEqual([{ name: "workspace", mountPath: "/workspace" }]);
  });

  it("has the Kaniko Job's name, owner, labels, deadline, retries and TTL for the same build", () => {
    const build = sampleBuild({ timeout: "1h30m", backoffLimit: 4 });
    const buildah = render(withCredentials, build);
    const kaniko = renderSample(withCredentials, build);
    expect(buildah.metadata).toEqual(kaniko.metadata);
    expect(buildah.spec?.activeDeadlineSeconds).toBe(5400);
    expect(buildah.spec?.backoffLimit).toBe(4);
    expect(buildah.spec?.ttlSecondsAfterFinished).toBe(3600);
    expect(buildah.spec?.template.metadata).toEqual(kaniko.spec?.template.metadata);
    expect(buildah.spec?.template.spec?.restartPolicy).toBe("Never");
  });

  it("takes plain HTTP, the image, the fetcher's image and extra arguments from the configuration", () => {
    const job = renderWith({
      registry: { url: "10.233.0.1:5000", insecure: true },
      buildah: {
        image: "example.com/buildah:1",
        extraArgs: ["--layers"],
      },
      artifacts: { fetcherImage: "example.com/slipway:2" },
    });
    const { build, push, "fetch-artifact": fetch } = containers(job);
    expect(build?.image).toBe("example.com/buildah:1");
    expect(fetch?.image).toBe("example.com/slipway:2");
    expect(build?.args?.slice(-3)).toEqual(["--tls-verify=false", "--layers", "/workspace"]);
    expect(push?.args).toContain("--tls-verify=false");
    expect(push?.args?.some((a) => a.startsWith("--authfile"))).toBe(false);
    expect(job.spec?.template.spec?.volumes?.map((v) => v.name)).toEqual(["workspace", "buildah-storage"]);
  });

  it("in a build namespace reads secret build arguments from the copy next to the Job", () => {
    const elsewhere = renderWith({ registry: { url: "registry.example.com/ml" } }, "ml-builds");
    const name = elsewhere.metadata?.name ?? "";
    expect(containers(elsewhere).build?.env).toContainEqual({
      name: "PIP_TOKEN",
      valueFrom: { secretKeyRef: { name: `${name}-args`, key: "PIP_TOKEN" } },
    });
    expect(elsewhere.metadata?.ownerReferences).toBeUndefined();
  });

  describe("with per-build credentials (registry.scopedCredentials)", () => {
    const scoped = {
      url: "registry.example.com/ml",
      credentialsSecret: "registry-creds",
      scopedCredentials: { secret: "registry-creds", key: "build-credentials-key" },
    };
    const jobWith = (baseImage?: string, namespace = "ml") => {
      const parsed = parseBuildsConfig({
        backend: "buildah",
        storage: { type: "s3", s3: {} },
        registry: scoped,
      });
      return renderBuildahJob({
        build: sampleBuild(baseImage ? { baseImage } : {}),
        image: parseImageReference("registry.example.com/ml/ml/fraud-scorer:v1"),
        artifact: { scheme: "s3", bucket: "models", key: "fraud/scorer/v1" },
        config: parsed,
        namespace,
      });
    };

    for (const namespace of ["ml", "ml-builds"])
      it(`pull and push hold the Job's own credential, never the registry's Secret (Job in ${namespace})`, () => {
        const job = jobWith("registry.example.com/ml/base:1", namespace);
        const name = job.metadata?.name ?? "";
        expect(job.spec?.template.spec?.volumes).toContainEqual({
          name: "registry-credentials",
          secret: {
            secretName: `${name}-registry`,
            items: [{ key: ".dockerconfigjson", path: "config.json" }],
          },
        });
        expect(JSON.stringify(job)).not.toContain("registry-creds");
        const all = containers(job);
        const holders = Object.values(all)
          .filter((c) => (c.volumeMounts ?? []).some((m) => m.name === "registry-credentials"))
          .map((c) => c.name);
        expect(holders).toEqual(["pull", "push"]);
        expect(all.push?.args).toContain("--authfile=/secrets/registry/config.json");
        expect(all.build?.args?.some((a) => a.startsWith("--authfile"))).toBe(false);
      });
  });

  it("refuses a Google registry in the configuration, naming the field (buildah pushes with a docker config)", () => {
    expect(() =>
      parseBuildsConfig({
        backend: "buildah",
        registry: { type: "google", url: "europe-docker.pkg.dev/p/r" },
      }),
    ).toThrow(/registry\.type: google is not supported by backend buildah/);
  });
});
