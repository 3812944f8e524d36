/** Shared setup of the controller tests: real registry and S3, a namespace with the credentials Secrets. */
import { BatchV1Api, CoreV1Api, type V1Job } from "@kubernetes/client-node";
import { afterAll, beforeAll } from "vitest";
import { ImageBuildKind } from "../../../src/apis/builds/imagebuild.ts";
import { adminConfig, eventually, testNamespace } from "../cluster.ts";
import { installCrds } from "../crds.ts";
import { type BuildServers, startBuildServers } from "../fakes/build-server-children.ts";
import { opaqueSecret, registrySecret } from "./operator.ts";

export const registryUser = { username: "builder", password: "reg-pass-7d1f0c9e" };
export const bucket = "artifacts";

/**
 * The build servers of a test file, started (and the ImageBuild CRD installed) before its tests and
 * stopped after them; the returned object is filled in once they run. `host`: where they listen.
 */
export function useBuildServers(host?: string): BuildServers {
  const servers = {} as BuildServers;
  beforeAll(async () => {
    const [started] = await Promise.all([
      startBuildServers({ [registryUser.username]: registryUser.password }, bucket, host),
      installCrds([ImageBuildKind]),
    ]);
    Object.assign(servers, started);
  });
  afterAll(() => servers.stop?.());
  return servers;
}

/** The operator configuration of the tests (overridable), pointing at the real servers. */
export function buildsConfig(servers: BuildServers, overrides: Record<string, unknown> = {}) {
  return {
    backend: "kaniko",
    registry: { url: servers.registry.address, insecure: true, credentialsSecret: "registry-creds" },
    storage: {
      type: "s3",
      s3: {
        endpoint: servers.s3.endpoint,
        region: "us-east-1",
        forcePathStyle: true,
        credentialsSecret: "s3-creds",
      },
    },
    ...overrides,
  };
}

/** A fresh namespace holding the registry and S3 credentials Secrets (the registry password may be overridden). */
export async function buildNamespace(
  servers: BuildServers,
  password = registryUser.password,
): Promise<string> {
  const namespace = await testNamespace("ib");
  await registrySecret(
    namespace,
    "registry-creds",
    servers.registry.address,
    registryUser.username,
    password,
  );
  await opaqueSecret(namespace, "s3-creds", {
    AWS_ACCESS_KEY_ID: servers.s3.accessKeyId,
    AWS_SECRET_ACCESS_KEY: servers.s3.secretAccessKey,
  });
  return namespace;
}

export async function jobsIn(namespace: string): Promise<V1Job[]> {
  return (await adminConfig().makeApiClient(BatchV1Api).listNamespacedJob({ namespace })).items;
}

/**
 * The Jobs of `namespace` once it has at least one: a build's status says Building before its Job is
 * created (src/builds/plan.ts), so a test that saw Building waits for the Job rather than reading once.
 */
export function jobsOnceCreated(namespace: string): Promise<V1Job[]> {
  return eventually(
    `a build Job in ${namespace}`,
    () => jobsIn(namespace),
    (jobs) => jobs.length > 0,
  );
}

export async function eventsIn(namespace: string): Promise<string> {
  const core = adminConfig().makeApiClient(CoreV1Api);
  return JSON.stringify((await core.listNamespacedEvent({ namespace })).items);
}

/**
 * The push Secret of `teams`' builds in the shared build namespace `builds` (tenancy.namespaces.<ns>.pushSecret):
 * the registry's one test user, in a Secret of its own; returns the tenancy configuration naming it.
 */
export async function teamPushSecrets(servers: BuildServers, builds: string, teams: string[]) {
  await registrySecret(
    builds,
    teamPushSecret,
    servers.registry.address,
    registryUser.username,
    registryUser.password,
  );
  return { namespaces: Object.fromEntries(teams.map((team) => [team, { pushSecret: teamPushSecret }])) };
}

export const teamPushSecret = "team-push";
