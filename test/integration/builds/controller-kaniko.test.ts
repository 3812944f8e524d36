import { Storage } from "@google-cloud/storage";
import { CoreV1Api, PatchStrategy, setHeaderOptions } from "@kubernetes/client-node";
import { describe, expect, it } from "vitest";
import type { ImageBuild } from "../../../src/apis/builds/imagebuild.ts";
import {
  buildNamespace,
  buildsConfig,
  eventsIn,
  jobsIn,
  jobsOnceCreated,
  registryUser,
  useBuildServers,
} from "../../support/builds/fixtures.ts";
import {
  createImageBuild,
  deleteImageBuild,
  opaqueSecret,
  readImageBuild,
  startBuildOperator,
  waitForPhase,
} from "../../support/builds/operator.ts";
import { adminConfig, eventually } from "../../support/cluster.ts";
import { startFakeGcs, uploadContext } from "../../support/fakes/build-server-children.ts";
import { pushImage } from "../../support/fakes/push-image.ts";

const dockerfile = "FROM scratch\nCOPY model.txt /model.txt\n";
const pipToken = "pip-token-5b3e8a11";

describe("ImageBuild controller, Kaniko backend", () => {
  const servers = useBuildServers();

  const spec = (artifactUri: string, version = "v1") => ({
    project: "fraud",
    name: "scorer",
    version,
    artifactUri,
  });

  it("image exists → Succeeded, reused, digest recorded, no Job", async () => {
    const namespace = await buildNamespace(servers);
    const digest = await pushImage(
      servers.registry.address,
      `${namespace}/fraud-scorer`,
      `exists-${namespace}`,
      registryUser,
    );
    const operator = await startBuildOperator(namespace, buildsConfig(servers));
    await createImageBuild(
      namespace,
      "scorer",
      spec(`s3://artifacts/${namespace}/none`, `exists-${namespace}`),
    );
    const build = await waitForPhase(namespace, "scorer", "Succeeded");
    expect(build.status).toMatchObject({
      reused: true,
      digest,
      image: `${servers.registry.address}/${namespace}/fraud-scorer:exists-${namespace}`,
    });
    expect(build.status?.conditions?.[0]).toMatchObject({
      type: "Succeeded",
      status: "True",
      reason: "Reused",
    });
    expect(await jobsIn(namespace)).toEqual([]);
    expect((await operator.metrics.reused.get()).values[0]?.value).toBe(1);
  });

  it("wrong registry password → Failed 'credentials rejected', nothing built", async () => {
    const namespace = await buildNamespace(servers, "not-the-password");
    await startBuildOperator(namespace, buildsConfig(servers));
    await createImageBuild(namespace, "scorer", spec(`s3://artifacts/${namespace}/ctx`));
    const build = await waitForPhase(namespace, "scorer", "Failed");
    expect(build.status?.message).toMatch(/registry credentials rejected/);
    expect(build.status?.conditions?.[0]?.reason).toBe("CredentialsRejected");
    expect(await jobsIn(namespace)).toEqual([]);
  });

  it("missing artifact → Failed naming the URI; no blob store → Failed saying so", async () => {
    const namespace = await buildNamespace(servers);
    await startBuildOperator(namespace, buildsConfig(servers));
    const uri = `s3://artifacts/${namespace}/nothing-here`;
    await createImageBuild(namespace, "scorer", spec(uri));
    const build = await waitForPhase(namespace, "scorer", "Failed");
    expect(build.status?.message).toContain(uri);
    expect(build.status?.conditions?.[0]?.reason).toBe("ArtifactMissing");
    expect(await jobsIn(namespace)).toEqual([]);

    const bare = await buildNamespace(servers);
    await startBuildOperator(bare, buildsConfig(servers, { storage: undefined }));
    await createImageBuild(bare, "scorer", spec(uri));
    const unconfigured = await waitForPhase(bare, "scorer", "Failed");
    expect(unconfigured.status?.message).toMatch(/no blob store is configured/);
    expect(await jobsIn(bare)).toEqual([]);
  });

  it("image missing → a Kaniko Job, completed by kwok; the pushed image's digest from the registry → Succeeded", async () => {
    const namespace = await buildNamespace(servers);
    await opaqueSecret(namespace, "pip", { token: pipToken });
    const artifactUri = await uploadContext(servers, namespace, {
      Dockerfile: dockerfile,
      "model.txt": "weights",
    });
    const operator = await startBuildOperator(namespace, buildsConfig(servers));
    await createImageBuild(namespace, "scorer", {
      ...spec(artifactUri, `kaniko-${namespace}`),
      buildArgs: [
        { name: "MODEL", value: "scorer" },
        { name: "PIP_TOKEN", valueFrom: { secretKeyRef: { name: "pip", key: "token" } } },
      ],
    });
    const [job] = await eventually(
      "the build Job completed by kwok",
      () => jobsIn(namespace),
      (jobs) =>
        jobs.some((j) => j.status?.conditions?.some((c) => c.type === "Complete" && c.status === "True")),
    );
    expect(job?.metadata?.ownerReferences).toMatchObject([
      { kind: "ImageBuild", name: "scorer", controller: true },
    ]);
    // kwok plays the pod but runs no Kaniko: push the image as Kaniko would have, after the Job finished.
    const digest = await pushImage(
      servers.registry.address,
      `${namespace}/fraud-scorer`,
      `kaniko-${namespace}`,
      registryUser,
    );
    const build = await waitForPhase(namespace, "scorer", "Succeeded");
    expect(build.status).toMatchObject({
      reused: false,
      digest,
      job: { namespace, name: job?.metadata?.name },
    });

    // No secret value in the Job, the status, the Events or the operator's log.
    const everything = JSON.stringify([
      await jobsIn(namespace),
      build.status,
      await eventsIn(namespace),
      operator.logs,
    ]);
    for (const secret of [pipToken, registryUser.password, servers.s3.secretAccessKey])
      expect(everything).not.toContain(secret);
    expect(JSON.stringify(job)).toContain('"--build-arg=PIP_TOKEN"');
    // the log searched above is the operator's: it started the controller, and the build logged no
    // warning or error (pino's levels: 40 warn, 50 error)
    const lines = operator.logs.map(
      (line) => JSON.parse(line) as { level: number; msg: string; controller?: string },
    );
    expect(lines).toContainEqual(
      expect.objectContaining({ msg: "starting controller", controller: "imagebuild" }),
    );
    expect(lines.filter((line) => line.level >= 40)).toEqual([]);
  });

  it("pod failure on the last retry → Failed with the termination message (not after the first failure)", async () => {
    const namespace = await buildNamespace(servers);
    const artifactUri = await uploadContext(servers, namespace, { Dockerfile: dockerfile });
    const failing = {
      "sim.slipway.dev/outcome": "fail",
      "sim.slipway.dev/message": "error building image: COPY failed: model.txt not found",
    };
    await startBuildOperator(namespace, buildsConfig(servers, { kaniko: { podAnnotations: failing } }));
    await createImageBuild(namespace, "scorer", {
      ...spec(artifactUri, `fail-${namespace}`),
      backoffLimit: 1,
    });
    const build = await waitForPhase(namespace, "scorer", "Failed");
    // kwok's stage fails the pod's regular container: with a push credential that is `push`, after
    // the init container `kaniko` (src/builds/kaniko-job.ts); a real Kaniko failure names `kaniko`
    expect(build.status?.message).toBe(
      "build failed after 2 attempts: push: error building image: COPY failed: model.txt not found",
    );
    await eventually(
      "the Job's two failed pods counted",
      () => jobsIn(namespace),
      ([job]) => job?.status?.failed === 2,
    );
  });

  it("a termination message carrying a credential base64- or URL-encoded reaches status.message redacted; the access key id stays readable", async () => {
    const namespace = await buildNamespace(servers);
    const artifactUri = await uploadContext(servers, namespace, { Dockerfile: dockerfile });
    // what `RUN echo "$REGISTRY_AUTH" | base64` would print, and the password in a URL
    const encoded = Buffer.from(`builder:${registryUser.password}\n`).toString("base64");
    const inUrl = encodeURIComponent(`${registryUser.password}/x`);
    const { accessKeyId, secretAccessKey } = servers.s3;
    // a secret build argument under a key that names no secret: secret because it is used as one
    const modelKey = "model-key-90c1d2e3";
    await opaqueSecret(namespace, "model", { key: modelKey });
    const failing = {
      "sim.slipway.dev/outcome": "fail",
      "sim.slipway.dev/message": `leaked ${encoded} and https://h/?p=${inUrl} as ${accessKeyId}:${secretAccessKey} with ${modelKey}`,
    };
    await startBuildOperator(namespace, buildsConfig(servers, { kaniko: { podAnnotations: failing } }));
    await createImageBuild(namespace, "scorer", {
      ...spec(artifactUri, `b64-${namespace}`),
      backoffLimit: 0,
      buildArgs: [{ name: "MODEL_KEY", valueFrom: { secretKeyRef: { name: "model", key: "key" } } }],
    });
    const build = await waitForPhase(namespace, "scorer", "Failed");
    const written = JSON.stringify([build.status, await eventsIn(namespace)]);
    expect(build.status?.message).toMatch(
      /^build failed after 1 attempt.*leaked .*\[redacted\].* and https:\/\/h\/\?p=\[redacted\]/,
    );
    expect(written).not.toContain(Buffer.from(registryUser.password).toString("base64").slice(0, 12));
    expect(written).not.toContain(encoded.slice(8, 20));
    expect(written).not.toContain(registryUser.password);
    // an identifier is not a secret: only the secret key next to it is redacted (issue #28)
    expect(build.status?.message).toContain(`as ${accessKeyId}:[redacted] with [redacted]`);
    expect(written).not.toContain(secretAccessKey);
    expect(written).not.toContain(modelKey);
  });

  it("an operator that never read the Job's Secrets (restarted while it ran) redacts them from its failure all the same", async () => {
    const namespace = await buildNamespace(servers);
    const artifactUri = await uploadContext(servers, namespace, { Dockerfile: dockerfile });
    const modelKey = "model-key-4e8b0c7a";
    await opaqueSecret(namespace, "model", { key: modelKey });
    const { accessKeyId, secretAccessKey } = servers.s3;
    const hang = { "sim.slipway.dev/outcome": "hang" };
    const first = await startBuildOperator(
      namespace,
      buildsConfig(servers, { kaniko: { podAnnotations: hang } }),
    );
    await createImageBuild(namespace, "scorer", {
      ...spec(artifactUri, `restart-${namespace}`),
      backoffLimit: 0,
      buildArgs: [{ name: "MODEL_KEY", valueFrom: { secretKeyRef: { name: "model", key: "key" } } }],
    });
    await waitForPhase(namespace, "scorer", "Building");
    const core = adminConfig().makeApiClient(CoreV1Api);
    const [pod] = (
      await eventually(
        "the build pod",
        () => core.listNamespacedPod({ namespace }),
        (pods) => pods.items.length > 0,
      )
    ).items;
    await first.manager.stop();
    // the pod fails now, printing what it was given: the next operator has read none of it
    await core.patchNamespacedPod(
      {
        namespace,
        name: pod?.metadata?.name ?? "",
        body: {
          metadata: {
            annotations: {
              "sim.slipway.dev/outcome": "fail",
              "sim.slipway.dev/message": `${accessKeyId}:${secretAccessKey} ${registryUser.password} ${modelKey}`,
            },
          },
        },
      },
      setHeaderOptions("Content-Type", PatchStrategy.MergePatch),
    );
    await eventually(
      "the Job failed",
      () => jobsIn(namespace),
      ([job]) => job?.status?.conditions?.some((c) => c.type === "Failed" && c.status === "True") === true,
    );
    await startBuildOperator(namespace, buildsConfig(servers));
    const build = await waitForPhase(namespace, "scorer", "Failed");
    expect(build.status?.message).toBe(
      `build failed after 1 attempts: push: ${accessKeyId}:[redacted] [redacted] [redacted]`,
    );
    const written = JSON.stringify([build.status, await eventsIn(namespace)]);
    for (const secret of [secretAccessKey, registryUser.password, modelKey])
      expect(written).not.toContain(secret);
  });

  it("an OOM-killed build pod → Failed(OOMKilled) naming the memory limit", async () => {
    const namespace = await buildNamespace(servers);
    const artifactUri = await uploadContext(servers, namespace, { Dockerfile: dockerfile });
    const oom = {
      "sim.slipway.dev/outcome": "fail",
      "sim.slipway.dev/reason": "OOMKilled",
      "sim.slipway.dev/exit-code": "137",
    };
    await startBuildOperator(namespace, buildsConfig(servers, { kaniko: { podAnnotations: oom } }));
    await createImageBuild(namespace, "scorer", {
      ...spec(artifactUri, `oom-${namespace}`),
      backoffLimit: 0,
      resources: { limits: { memory: "6Gi" } },
    });
    const build = await waitForPhase(namespace, "scorer", "Failed");
    expect(build.status?.conditions?.[0]?.reason).toBe("OOMKilled");
    expect(build.status?.message).toMatch(/OOMKilled at its memory limit of 6Gi/);
  });

  it("timeout → the Job is deleted and the build Failed(Timeout)", async () => {
    const namespace = await buildNamespace(servers);
    const artifactUri = await uploadContext(servers, namespace, { Dockerfile: dockerfile });
    await startBuildOperator(
      namespace,
      buildsConfig(servers, { kaniko: { podAnnotations: { "sim.slipway.dev/outcome": "hang" } } }),
    );
    await createImageBuild(namespace, "scorer", { ...spec(artifactUri, `slow-${namespace}`), timeout: "3s" });
    await eventually(
      "the build Job",
      () => jobsIn(namespace),
      (jobs) => jobs.length === 1,
    );
    const build = await waitForPhase(namespace, "scorer", "Failed");
    expect(build.status?.conditions?.[0]?.reason).toBe("Timeout");
    expect(build.status?.message).toMatch(/exceeded its timeout of 3s/);
    await eventually(
      "the Job deleted",
      () => jobsIn(namespace),
      (jobs) => jobs.length === 0,
      30_000,
    );
  });

  it("maxConcurrentBuilds: a build beyond the limit waits Pending (Queued) with no Job", async () => {
    const namespace = await buildNamespace(servers);
    const artifactUri = await uploadContext(servers, namespace, { Dockerfile: dockerfile });
    const hang = { "sim.slipway.dev/outcome": "hang" };
    await startBuildOperator(
      namespace,
      buildsConfig(servers, { maxConcurrentBuilds: 1, kaniko: { podAnnotations: hang } }),
    );
    await createImageBuild(namespace, "first", spec(artifactUri, `q1-${namespace}`));
    await waitForPhase(namespace, "first", "Building");
    await createImageBuild(namespace, "second", spec(artifactUri, `q2-${namespace}`));
    const queued = await eventually(
      "the second build queued",
      () => readImageBuild(namespace, "second"),
      (b) => b.status?.conditions?.[0]?.reason === "Queued",
    );
    expect(queued.status).toMatchObject({
      phase: "Pending",
      message: expect.stringMatching(/maxConcurrentBuilds 1/),
    });
    expect((await jobsOnceCreated(namespace)).length).toBe(1);
  });

  it("maxConcurrentBuilds: builds created side by side take no more slots than there are", async () => {
    const namespace = await buildNamespace(servers);
    const artifactUri = await uploadContext(servers, namespace, { Dockerfile: dockerfile });
    await startBuildOperator(
      namespace,
      buildsConfig(servers, {
        maxConcurrentBuilds: 1,
        kaniko: { podAnnotations: { "sim.slipway.dev/outcome": "hang" } },
      }),
    );
    const names = ["a", "b", "c", "d"];
    // four workers decide them at once: each counts the slots before any of their Jobs is in the cache
    await Promise.all(
      names.map((name) => createImageBuild(namespace, name, spec(artifactUri, `side-${name}-${namespace}`))),
    );
    const isQueued = (b: ImageBuild) => b.status?.conditions?.[0]?.reason === "Queued";
    const builds = await eventually(
      "every build Building or Queued",
      () => Promise.all(names.map((name) => readImageBuild(namespace, name))),
      (all) => all.every((b) => b.status?.phase === "Building" || isQueued(b)),
    );
    expect(builds.filter((b) => b.status?.phase === "Building")).toHaveLength(1);
    expect(builds.filter(isQueued)).toHaveLength(3);
    expect((await jobsOnceCreated(namespace)).length).toBe(1);
  });

  it("two ImageBuilds of one reference share one Job; deleting its owner deletes the Job", {
    timeout: 300_000,
  }, async () => {
    const namespace = await buildNamespace(servers);
    const artifactUri = await uploadContext(servers, namespace, { Dockerfile: dockerfile });
    await startBuildOperator(
      namespace,
      buildsConfig(servers, { kaniko: { podAnnotations: { "sim.slipway.dev/outcome": "hang" } } }),
    );
    await createImageBuild(namespace, "first", spec(artifactUri, `shared-${namespace}`));
    await createImageBuild(namespace, "second", spec(artifactUri, `shared-${namespace}`));
    const [first, second] = await Promise.all([
      waitForPhase(namespace, "first", "Building"),
      waitForPhase(namespace, "second", "Building"),
    ]);
    expect(first.status?.job).toEqual(second.status?.job);
    const jobs = await jobsIn(namespace);
    expect(jobs.map((j) => j.metadata?.name)).toEqual([first.status?.job?.name]);

    const owner = jobs[0]?.metadata?.ownerReferences?.[0]?.name ?? "";
    await deleteImageBuild(namespace, owner);
    // the shared plane's garbage collector pauses while it syncs a monitor for each kind other test
    // files add (CRDs installed meanwhile): its delay is the collector's, not Slipway's
    await eventually(
      "the Job garbage-collected with its owner",
      () => jobsIn(namespace),
      (left) => !left.some((j) => j.metadata?.uid === jobs[0]?.metadata?.uid),
      180_000,
    );
    const other = owner === "first" ? "second" : "first";
    expect((await readImageBuild(namespace, other)).metadata.deletionTimestamp).toBeUndefined();
  });

  it("GCS artifacts (fake-gcs-server): a missing one fails naming the gs:// URI; a present one gets a Job reading it", async () => {
    const gcs = await startFakeGcs();
    try {
      const storage = new Storage({ apiEndpoint: gcs.endpoint, projectId: "emulator" });
      await storage.createBucket("models");
      await storage.bucket("models").file("fraud/v1/Dockerfile").save(dockerfile);
      const namespace = await buildNamespace(servers);
      const config = buildsConfig(servers, { storage: { type: "gcs", gcs: { endpoint: gcs.endpoint } } });
      await startBuildOperator(namespace, {
        ...config,
        kaniko: { podAnnotations: { "sim.slipway.dev/outcome": "hang" } },
      });
      await createImageBuild(namespace, "missing", spec("gs://models/fraud/v2", `gcs-missing-${namespace}`));
      await createImageBuild(namespace, "present", spec("gs://models/fraud/v1", `gcs-${namespace}`));
      expect((await waitForPhase(namespace, "missing", "Failed")).status?.message).toContain(
        "gs://models/fraud/v2",
      );
      await waitForPhase(namespace, "present", "Building");
      const [job] = await jobsOnceCreated(namespace);
      const fetcher = job?.spec?.template.spec?.initContainers?.[0];
      expect(fetcher?.args?.slice(-2)).toEqual(["gs://models/fraud/v1", "/workspace"]);
      const storageArg = fetcher?.args?.find((arg) => arg.startsWith("--storage=")) ?? "--storage={}";
      expect(JSON.parse(storageArg.slice("--storage=".length)).gcs.endpoint).toBe(gcs.endpoint);
    } finally {
      await gcs.stop();
    }
  });
});
