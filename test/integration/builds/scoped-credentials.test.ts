/**
 * Per-build registry credentials from the operator (issue #29 item 7), on the real API server: with
 * `registry.scopedCredentials` the operator mints, for each build Job, a credential for that build's
 * repository (and pull on its base) until its timeout, in a Secret next to the Job and owned by it,
 * mounted only into the steps that pull the base and push. The registry's own Secret (the operator's
 * push-everywhere credential) is in no build pod. A missing HMAC key fails the build, naming the field.
 */
import { CoreV1Api } from "@kubernetes/client-node";
import { describe, expect, it } from "vitest";
import { credentialMarginSeconds } from "../../../src/builds/build-credential.ts";
import { registryCredentialsSecretName } from "../../../src/builds/build-namespace.ts";
import { verifyBuildCredential } from "../../../src/builds/registry/build-credentials.ts";
import { credentialsFromDockerConfig } from "../../../src/builds/registry/credentials.ts";
import {
  buildNamespace,
  buildsConfig,
  eventsIn,
  jobsIn,
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

const hmacKey = "5a1f0e6c2b7d4a9e8f3c1b0a6d5e4f3a2b1c0d9e8f7a6b5c4d3e2f1a0b9c8d7e";
const scopedCredentials = { secret: "registry-token", key: "build-credentials-key" };

describe("per-build registry credentials (registry.scopedCredentials)", () => {
  const servers = useBuildServers();

  it("the Job pushes with a credential of its own: its repository and its base only, until its timeout; owned by the Job, in no step that runs the Dockerfile", async () => {
    const namespace = await buildNamespace(servers);
    await opaqueSecret(namespace, scopedCredentials.secret, { [scopedCredentials.key]: hmacKey });
    const registry = servers.registry.address;
    const operator = await startBuildOperator(
      namespace,
      buildsConfig(servers, {
        backend: "buildah",
        registry: { url: registry, insecure: true, credentialsSecret: "registry-creds", scopedCredentials },
        kaniko: { podAnnotations: { "sim.slipway.dev/outcome": "hang" } },
      }),
    );
    const artifactUri = await uploadContext(servers, namespace, { Dockerfile: "FROM scratch\n" });
    const minted = Math.floor(Date.now() / 1000);
    await createImageBuild(namespace, "scorer", {
      project: "fraud",
      name: "scorer",
      version: "v1",
      artifactUri,
      timeout: "20m",
      baseImage: `${registry}/${namespace}/base:1`,
    });
    await waitForPhase(namespace, "scorer", "Building");
    const [job] = await eventually(
      "the build's Job",
      () => jobsIn(namespace),
      (jobs) => jobs.length === 1,
      30_000,
    );
    const jobName = job?.metadata?.name ?? "";
    const core = adminConfig().makeApiClient(CoreV1Api);
    const secret = await eventually(
      "the Job's credential, owned by the Job",
      () => core.readNamespacedSecret({ namespace, name: registryCredentialsSecretName(jobName) }),
      (s) => s.metadata?.ownerReferences !== undefined,
      30_000,
    );
    expect(secret.type).toBe("kubernetes.io/dockerconfigjson");
    expect(secret.metadata?.ownerReferences).toEqual([
      expect.objectContaining({ kind: "Job", name: jobName, uid: job?.metadata?.uid, controller: true }),
    ]);
    const dockerConfig = Buffer.from(secret.data?.[".dockerconfigjson"] ?? "", "base64").toString();
    const credentials = credentialsFromDockerConfig(dockerConfig, registry);
    if (!credentials) throw new Error("no credentials for the registry in the Job's Secret");
    const verified = verifyBuildCredential(hmacKey, credentials, Math.floor(Date.now() / 1000));
    if ("refused" in verified) throw new Error(verified.refused);
    expect(verified.grant).toMatchObject({
      repository: `${namespace}/fraud-scorer`,
      pull: [`${namespace}/base`],
    });
    expect(verified.grant.expiresAt - minted).toBeGreaterThanOrEqual(1200 + credentialMarginSeconds);
    expect(verified.grant.expiresAt - minted).toBeLessThanOrEqual(1200 + credentialMarginSeconds + 60);

    // the pod: that Secret in `pull` and `push` only; the registry's own Secret nowhere
    const pod = job?.spec?.template.spec;
    expect(JSON.stringify(pod)).not.toContain("registry-creds");
    expect(pod?.volumes?.find((v) => v.name === "registry-credentials")?.secret?.secretName).toBe(
      registryCredentialsSecretName(jobName),
    );
    const holders = [...(pod?.initContainers ?? []), ...(pod?.containers ?? [])]
      .filter((c) => c.volumeMounts?.some((m) => m.name === "registry-credentials"))
      .map((c) => c.name);
    expect(holders).toEqual(["pull", "push"]);
    // the credential is nowhere else: not in the Job, the status, the Events, the operator's log
    const build = await waitForPhase(namespace, "scorer", "Building");
    const shown = JSON.stringify([job, build, await eventsIn(namespace), operator.logs]);
    expect(shown).not.toContain(credentials.password);
    expect(shown).not.toContain(hmacKey);
  });

  it("without the HMAC key's Secret the build fails naming the field, and no Job is made", async () => {
    const namespace = await buildNamespace(servers);
    await startBuildOperator(
      namespace,
      buildsConfig(servers, {
        backend: "buildah",
        registry: {
          url: servers.registry.address,
          insecure: true,
          credentialsSecret: "registry-creds",
          scopedCredentials,
        },
      }),
    );
    const artifactUri = await uploadContext(servers, namespace, { Dockerfile: "FROM scratch\n" });
    await createImageBuild(namespace, "scorer", {
      project: "fraud",
      name: "scorer",
      version: "v1",
      artifactUri,
    });
    const failed = await waitForPhase(namespace, "scorer", "Failed");
    expect(failed.status?.conditions).toContainEqual(
      expect.objectContaining({ type: "Succeeded", status: "False", reason: "CredentialsRejected" }),
    );
    expect(failed.status?.message).toMatch(
      new RegExp(
        `^no registry credential for the build's Job build-[a-z0-9-]+: registry\\.scopedCredentials: Secret registry-token in namespace ${namespace} not found$`,
      ),
    );
    expect(await jobsIn(namespace)).toEqual([]);
  });
});
