/**
 * The buildah backend for real (issue 14): an ImageBuild builds in a Job on the real node — artifact from
 * MinIO, base image and push to an htpasswd registry, a RUN step in buildah's rootless chroot — and the
 * manifest is then in the registry; a second ImageBuild of the reference reuses it with no Job. The
 * servers listen on the real node's bridge address, which its pods reach. Skipped, with the reason in
 * its name, when the shared plane has no real node.
 */
import { execFile } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { gunzipSync } from "node:zlib";
import { CoreV1Api } from "@kubernetes/client-node";
import { describe, expect, inject, it } from "vitest";
import { RegistryClient } from "../../../src/builds/registry/client.ts";
import { bridgeGateway } from "../../../src/dev/real-node/network.ts";
import { writeRegistryHosts } from "../../../src/dev/real-node/node.ts";
import { realNodePlacement } from "../../../src/dev/real-node/objects.ts";
import { skipFor } from "../../support/allowed-skips.ts";
import {
  buildNamespace,
  buildsConfig,
  eventsIn,
  jobsIn,
  registryUser,
  useBuildServers,
} from "../../support/builds/fixtures.ts";
import {
  createImageBuild,
  opaqueSecret,
  startBuildOperator,
  waitForPhase,
} from "../../support/builds/operator.ts";
import { adminConfig, eventually } from "../../support/cluster.ts";
import { uploadContext } from "../../support/fakes/build-server-children.ts";

const run = promisify(execFile);
const skipped = inject("realNodeSkipped");
const secretArg = "model-key-5be0a7c3";
const credentials = `${registryUser.username}:${registryUser.password}`;

/** A base image with a shell (Debian's static busybox), pushed to the test registry with the host's buildah. */
async function pushBusyboxBase(registry: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "slipway-buildah-base-"));
  const bah = (...args: string[]) =>
    run("buildah", [
      "--root",
      join(dir, "root"),
      "--runroot",
      join(dir, "run"),
      "--storage-driver",
      "vfs",
      ...args,
    ]);
  const reference = `${registry}/slipway-test/busybox:1`;
  try {
    const container = (await bah("from", "scratch")).stdout.trim();
    await bah("copy", container, "/usr/bin/busybox", "/bin/busybox");
    await bah(
      "commit",
      "--quiet",
      "--tls-verify=false",
      "--creds",
      credentials,
      container,
      `docker://${reference}`,
    );
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
  return reference;
}

/** The uncompressed layers of an image in the registry, as text (to find the files a RUN step wrote). */
async function layersText(registry: string, repository: string, tag: string): Promise<string> {
  const authorization = `Basic ${Buffer.from(credentials).toString("base64")}`;
  const manifest = (await (
    await fetch(`http://${registry}/v2/${repository}/manifests/${tag}`, {
      headers: {
        authorization,
        accept:
          "application/vnd.oci.image.manifest.v1+json, application/vnd.docker.distribution.manifest.v2+json",
      },
    })
  ).json()) as { layers: { digest: string }[] };
  const texts = [];
  for (const layer of manifest.layers) {
    const blob = Buffer.from(
      await (
        await fetch(`http://${registry}/v2/${repository}/blobs/${layer.digest}`, {
          headers: { authorization },
        })
      ).arrayBuffer(),
    );
    texts.push((blob[0] === 0x1f && blob[1] === 0x8b ? gunzipSync(blob) : blob).toString("latin1"));
  }
  return texts.join("\n");
}

describe("the buildah backend on the real node", skipFor(skipped), () => {
  const servers = useBuildServers(bridgeGateway);

  it("builds from the artifact in MinIO and pushes; the manifest exists; a second build of the reference is reused with no Job", {
    timeout: 480_000,
  }, async () => {
    const namespace = await buildNamespace(servers);
    await opaqueSecret(namespace, "model", { key: secretArg });
    const registry = servers.registry.address;
    const base = await pushBusyboxBase(registry);
    const artifactUri = await uploadContext(servers, `${namespace}/scorer`, {
      Dockerfile: [
        "ARG BASE_IMAGE",
        "FROM $BASE_IMAGE",
        "ARG MODEL_KEY",
        'RUN ["/bin/busybox", "sh", "-c", "echo built-by-uid-$(/bin/busybox id -u) > /built.txt && /bin/busybox chown 42:42 /built.txt"]',
        "COPY model.txt /model/model.txt",
        "",
      ].join("\n"),
      "model.txt": "weights",
    });
    const operator = await startBuildOperator(
      namespace,
      buildsConfig(servers, { backend: "buildah", kaniko: { ...realNodePlacement() } }),
    );
    const client = new RegistryClient({ registry, insecure: true, credentials: async () => registryUser });
    const tag = `buildah-${namespace}`;
    // tenancy: a namespace's images go under its own prefix (tenancy.repositoryPrefix, default `<namespace>/`)
    const repository = `${namespace}/fraud-scorer`;
    expect(await client.manifestDigest(repository, tag)).toBeUndefined();
    const spec = {
      project: "fraud",
      name: "scorer",
      version: tag,
      artifactUri,
      baseImage: base,
      buildArgs: [{ name: "MODEL_KEY", valueFrom: { secretKeyRef: { name: "model", key: "key" } } }],
    };

    await createImageBuild(namespace, "scorer", spec);
    const built = await waitForPhase(namespace, "scorer", "Succeeded", 420_000);
    const digest = await client.manifestDigest(repository, tag);
    expect(digest).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(built.status).toMatchObject({
      reused: false,
      digest,
      image: `${registry}/${repository}:${tag}`,
    });
    expect(await layersText(registry, repository, tag)).toContain("built-by-uid-0");

    const [job, ...more] = await jobsIn(namespace);
    expect(more).toEqual([]);
    const pod = job?.spec?.template.spec;
    expect(pod?.containers[0]?.securityContext?.capabilities).toEqual({
      drop: ["ALL"],
      add: ["SETUID", "SETGID"],
    });
    const pods = await adminConfig()
      .makeApiClient(CoreV1Api)
      .listNamespacedPod({ namespace, labelSelector: `job-name=${job?.metadata?.name}` });
    const succeeded = pods.items.find((p) => p.status?.phase === "Succeeded");
    expect(succeeded?.status?.containerStatuses?.[0]?.state?.terminated?.message).toBe(digest);

    await createImageBuild(namespace, "scorer-again", { ...spec });
    const reused = await waitForPhase(namespace, "scorer-again", "Succeeded", 60_000);
    expect(reused.status).toMatchObject({ reused: true, digest });
    expect((await jobsIn(namespace)).map((j) => j.metadata?.uid)).toEqual([job?.metadata?.uid]);

    // a pod of the namespace pulls what was built from the registry on the bridge (the node's
    // containerd through the hosts file `slipway dev up` writes for dev's registry) and runs it
    await writeRegistryHosts(inject("devDir"), registry);
    const core = adminConfig().makeApiClient(CoreV1Api);
    const auth = Buffer.from(credentials).toString("base64");
    await core.createNamespacedSecret({
      namespace,
      body: {
        metadata: { name: "pull" },
        type: "kubernetes.io/dockerconfigjson",
        stringData: { ".dockerconfigjson": JSON.stringify({ auths: { [registry]: { auth } } }) },
      },
    });
    await core.createNamespacedPod({
      namespace,
      body: {
        metadata: { name: "runs-the-build" },
        spec: {
          ...realNodePlacement(),
          restartPolicy: "Never",
          imagePullSecrets: [{ name: "pull" }],
          containers: [
            {
              name: "main",
              image: `${registry}/${repository}:${tag}`,
              command: ["/bin/busybox", "cat", "/model/model.txt"],
            },
          ],
        },
      },
    });
    const ran = await eventually(
      "pod runs-the-build Succeeded",
      () => core.readNamespacedPod({ namespace, name: "runs-the-build" }),
      (p) => p.status?.phase === "Succeeded" || p.status?.phase === "Failed",
      120_000,
    ).catch(async (error) => {
      const pod = await core.readNamespacedPod({ namespace, name: "runs-the-build" });
      throw new Error(`${error}: ${JSON.stringify(pod.status)}`);
    });
    expect(ran.status?.phase).toBe("Succeeded");
    expect(await core.readNamespacedPodLog({ namespace, name: "runs-the-build" })).toBe("weights");

    const everything = JSON.stringify([built, reused, await eventsIn(namespace), operator.logs]);
    for (const secret of [secretArg, registryUser.password, servers.s3.secretAccessKey])
      expect(everything).not.toContain(secret);
  });
});
