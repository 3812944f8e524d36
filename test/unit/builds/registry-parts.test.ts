import type { V1Job, V1Pod } from "@kubernetes/client-node";
import { describe, expect, it } from "vitest";
import { devBuildsConfig, parseBuildsConfig } from "../../../src/builds/config.ts";
import { observeJob } from "../../../src/builds/job-observation.ts";
import { classifyStatus, parseChallenge } from "../../../src/builds/registry/challenge.ts";
import { credentialsFromDockerConfig } from "../../../src/builds/registry/credentials.ts";

describe("WWW-Authenticate challenges", () => {
  it("parses Bearer realm, service and scope", () => {
    expect(
      parseChallenge(
        'Bearer realm="https://auth.docker.io/token",service="registry.docker.io",scope="repository:a/b:pull"',
      ),
    ).toEqual({
      scheme: "bearer",
      realm: "https://auth.docker.io/token",
      service: "registry.docker.io",
      scope: "repository:a/b:pull",
    });
    expect(parseChallenge('Basic realm="slipway"')).toEqual({ scheme: "basic", realm: "slipway" });
    expect(parseChallenge("Bearer service=x")).toBeUndefined();
    expect(parseChallenge(null)).toBeUndefined();
  });

  it("classifies statuses: 401/403 are never 'missing'", () => {
    expect([200, 404, 401, 403, 429, 503, 400].map(classifyStatus)).toEqual([
      "ok",
      "not-found",
      "unauthorized",
      "unauthorized",
      "transient",
      "transient",
      "unexpected",
    ]);
  });
});

describe("dockerconfigjson", () => {
  const auth = (user: string, password: string) => Buffer.from(`${user}:${password}`).toString("base64");

  it("finds the registry's entry by host, with or without scheme", () => {
    const config = JSON.stringify({
      auths: { "https://registry.example.com": { auth: auth("bob", "p:w") } },
    });
    expect(credentialsFromDockerConfig(config, "registry.example.com")).toEqual({
      username: "bob",
      password: "p:w",
    });
    expect(credentialsFromDockerConfig(config, "other.example.com")).toBeUndefined();
  });

  it("treats Docker Hub's host names as one registry; username/password fields work too", () => {
    const config = JSON.stringify({
      auths: { "https://index.docker.io/v1/": { username: "u", password: "p" } },
    });
    expect(credentialsFromDockerConfig(config, "docker.io")).toEqual({ username: "u", password: "p" });
  });

  it("names a malformed document without echoing it", () => {
    expect(() => credentialsFromDockerConfig("{not json s3cret", "x")).toThrow(/not valid JSON$/);
  });
});

describe("operator configuration", () => {
  it("fills defaults: the namespace's prefix and a flat name, Kaniko 8Gi limit, cache on, 30m timeout", () => {
    const config = parseBuildsConfig({ registry: { url: "localhost:5000" } });
    expect(config.naming.image).toBe("{registry}/{prefix}{project}-{name}:{version}");
    expect(config.kaniko.resources.limits).toEqual({ memory: "8Gi" });
    expect(config.kaniko.cache.enabled).toBe(true);
    expect(config).toMatchObject({ backend: "kaniko", defaultTimeout: "30m", maxConcurrentBuilds: 10 });
    expect(config.storage).toBeUndefined();
  });

  it("slipway dev builds locally with buildah against a plain-HTTP registry and S3", () => {
    const config = devBuildsConfig({ registryUrl: "127.0.0.1:5000", s3Endpoint: "http://127.0.0.1:9000" });
    expect(config).toMatchObject({
      backend: "local",
      registry: { url: "127.0.0.1:5000", insecure: true, type: "docker" },
      storage: {
        type: "s3",
        s3: { endpoint: "http://127.0.0.1:9000", forcePathStyle: true, region: "us-east-1" },
      },
    });
  });

  it("names the field and the rule of a bad value", () => {
    expect(() => parseBuildsConfig({ registry: { url: "x", type: "quay" } })).toThrow(/registry\.type/);
    expect(() => parseBuildsConfig({ registry: { url: "x" }, defaultTimeout: "ten minutes" })).toThrow(
      /defaultTimeout/,
    );
    expect(() => parseBuildsConfig({})).toThrow(/registry/);
  });
});

describe("build Job observation", () => {
  const job = (conditions: { type: string; status: string; reason?: string }[], status = {}): V1Job => ({
    metadata: { name: "build-x", uid: "job-uid" },
    status: { conditions: conditions as never, ...status },
  });
  const failedPod = (reason: string, message: string, finishedAt: string): V1Pod => ({
    metadata: { ownerReferences: [{ uid: "job-uid", apiVersion: "batch/v1", kind: "Job", name: "build-x" }] },
    status: {
      containerStatuses: [
        {
          name: "kaniko",
          image: "k",
          imageID: "",
          ready: false,
          restartCount: 0,
          state: { terminated: { exitCode: 1, reason, message, finishedAt: new Date(finishedAt) } },
        },
      ],
    },
  });

  it("running while retries remain, even after a pod failed", () => {
    expect(
      observeJob(job([], { failed: 1, active: 1 }), [failedPod("Error", "boom", "2026-01-01T00:00:00Z")]).run,
    ).toEqual({
      state: "running",
      attempts: 2,
    });
  });

  it("failed with the last pod's termination message; OOMKilled named", () => {
    const pods = [
      failedPod("Error", "first", "2026-01-01T00:00:00Z"),
      failedPod("OOMKilled", "", "2026-01-01T00:01:00Z"),
    ];
    expect(
      observeJob(
        job([{ type: "Failed", status: "True", reason: "BackoffLimitExceeded" }], { failed: 2 }),
        pods,
      ).run,
    ).toMatchObject({
      state: "failed",
      reason: "OOMKilled",
    });
    const last = observeJob(job([{ type: "Failed", status: "True" }], { failed: 1 }), [
      failedPod("Error", "COPY failed", "2026-01-01T00:00:00Z"),
    ]);
    expect(last).toEqual({
      run: { state: "failed", attempts: 1, reason: "Error", message: "kaniko: COPY failed" },
      pending: false,
    });
  });

  it("counts failed pods the Job controller has not counted yet", () => {
    const counting = job([{ type: "FailureTarget", status: "True" }], {
      failed: 1,
      uncountedTerminatedPods: { failed: ["pod-2"] },
    });
    expect(observeJob(counting, [failedPod("Error", "boom", "2026-01-01T00:00:00Z")]).run).toMatchObject({
      state: "failed",
      attempts: 2,
    });
  });

  it("pods that cannot be seen (a Job read outside the operator's cache): the Job's own message, no waiting", () => {
    const failed = job(
      [
        {
          type: "Failed",
          status: "True",
          reason: "BackoffLimitExceeded",
          message: "Job has reached the specified backoff limit",
        } as never,
      ],
      { failed: 1 },
    );
    expect(observeJob(failed, undefined)).toEqual({
      run: {
        state: "failed",
        attempts: 1,
        reason: "Error",
        message: "Job has reached the specified backoff limit",
      },
      pending: false,
    });
  });

  it("waits when the failed pods are not visible yet; deadline is a timeout", () => {
    expect(observeJob(job([{ type: "Failed", status: "True" }]), []).pending).toBe(true);
    expect(
      observeJob(job([{ type: "Failed", status: "True", reason: "DeadlineExceeded" }]), []).run,
    ).toMatchObject({
      reason: "DeadlineExceeded",
    });
    expect(observeJob(undefined, []).run).toEqual({ state: "absent" });
    expect(observeJob(job([{ type: "Complete", status: "True" }], { succeeded: 1 }), []).run.state).toBe(
      "succeeded",
    );
  });
});
