/**
 * The platform for real on the real node (issue 14, "Done means" 1 and 4): `slipway install` →
 * Running where Running means real processes passed real probes; every service checked from a pod
 * on the node (the host may not route to ClusterIPs) with the generated credentials, which never
 * leave the cluster: postgres logins, an MLflow experiment stored in postgres and an artifact in the
 * object store, the registry refusing anonymous and Basic pushes and taking tokens of the api-server's
 * issuer (the platform's user everywhere, a per-build credential on its repository only), the api-server and the UI through their
 * Services. A Pipeline run by the platform's Argo; an ImageBuild built by the buildah Job backend from
 * the platform's object store into its registry, through the override the Platform vouches for.
 * Then a component broken for real with `slipway patch --set`, and fixed. Skipped, with the
 * reason in the name, without the real node or without release 0.2.0's images on it.
 */
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { BatchV1Api, CoreV1Api, RbacAuthorizationV1Api } from "@kubernetes/client-node";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { overrideConfigMapName } from "../../../src/builds/override.ts";
import { binaryPaths } from "../../../src/dev/binaries.ts";
import { buildDemoImage, runDemoPipeline } from "../../../src/dev/demo-work.ts";
import { realNodeName } from "../../../src/dev/real-node/config.ts";
import { localImageReferences } from "../../../src/dev/real-node/images.ts";
import { realNodePlacement } from "../../../src/dev/real-node/objects.ts";
import { realNodeInstallFlags } from "../../../src/dev/real-node/platform-flags.ts";
import type { Manager } from "../../../src/kube/manager.ts";
import type { RunStepStatus } from "../../../src/pipelines/backend.ts";
import { findRelease } from "../../../src/platform/catalog.ts";
import { credentialSecrets } from "../../../src/platform/credentials.ts";
import { workflowImages } from "../../../src/platform/workflow-images.ts";
import { serviceAccountToken, startServer } from "../../integration/server/server.ts";
import { skipFor } from "../../support/allowed-skips.ts";
import { createImageBuild, waitForPhase } from "../../support/builds/operator.ts";
import { adminConfig, eventually } from "../../support/cluster.ts";
import { grantRole } from "../../support/service-account.ts";
import { platformRegistry, startPlatformBuilds } from "./real-build.ts";
import {
  mainLog,
  readPlatformObject,
  readWorkflow,
  runCachedPipeline,
  runForbidSchedule,
  runIoPipeline,
  runRetriedPipeline,
  startPipelinesController,
  workflowPods,
} from "./real-pipeline.ts";
import { cli, type OperatorProcess, readPlatform, startOperator, suiteNamespace } from "./support.ts";

// biome-ignore lint/suspicious/noExplicitAny: test reads of arbitrary objects
type Any = any;

const run = promisify(execFile);
const release = findRelease("0.2.0");
const localImages = new Set(Object.values(localImageReferences()));
const missingImages = release ? Object.values(release.images).filter((image) => !localImages.has(image)) : [];
const skipped =
  inject("realNodeSkipped") ||
  (missingImages.length ? `no local image ${missingImages.join(", ")} on the real node` : "");

const core = () => adminConfig().makeApiClient(CoreV1Api);
const kubectl = (...args: string[]) =>
  run(binaryPaths().kubectl, ["--kubeconfig", inject("kubeconfig"), ...args], { timeout: 60_000 });

/** Every process's command line in the container, one per line (the mlflow image has no `ps`). */
const listProcesses = String.raw`
import os
for pid in filter(str.isdigit, os.listdir("/proc")):
    try:
        print(open(f"/proc/{pid}/cmdline", "rb").read().replace(b"\0", b" ").decode())
    except OSError:
        pass
`;

/** The checks, run in the mlflow image (python with psycopg2 and boto3): one JSON line of results. */
const checks = String.raw`
import base64, hashlib, hmac, json, os, time, urllib.parse, urllib.request, urllib.error, boto3, psycopg2
ns, out = os.environ["NS"], {}
def svc(name): return "slipway-" + name + "." + ns + ".svc"
def http(method, url, body=None, headers={}):
    request = urllib.request.Request(url, data=body, method=method, headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=120) as response: return response.status, response.read().decode(errors="replace")
    except urllib.error.HTTPError as error: return error.code, error.read().decode(errors="replace")
def login(password):
    try:
        psycopg2.connect(host=svc("postgres"), dbname="slipway", user=os.environ["DB_USER"], password=password, connect_timeout=10).close(); return "ok"
    except Exception as error: return str(error).strip().splitlines()[0]
out["login"] = login(os.environ["DB_PASSWORD"])
out["wrongLogin"] = login("wrong")
out["noPasswordLogin"] = login("")
mlflow = "http://" + svc("mlflow") + ":5000"
status, text = http("POST", mlflow + "/api/2.0/mlflow/experiments/create", json.dumps({"name": "e2e"}).encode(), {"Content-Type": "application/json"})
out["experiment"] = [status, text[:300]]
experiment = json.loads(text).get("experiment_id") if status == 200 else None
db = psycopg2.connect(host=svc("postgres"), dbname="slipway", user=os.environ["DB_USER"], password=os.environ["DB_PASSWORD"])
cursor = db.cursor(); cursor.execute("SELECT name FROM experiments WHERE experiment_id = %s", (experiment,))
out["experimentInPostgres"] = [row[0] for row in cursor.fetchall()]
status, text = http("PUT", mlflow + "/api/2.0/mlflow-artifacts/artifacts/e2e/model.txt", b"weights")
out["artifactUpload"] = status
s3 = boto3.client("s3", endpoint_url="http://" + svc("object-store") + ":9000")
out["objects"] = [o["Key"] for o in s3.list_objects_v2(Bucket="slipway", Prefix="mlflow/").get("Contents", [])]
registry = "http://" + svc("registry") + ":5000"
def basic(user, password): return {"Authorization": "Basic " + base64.b64encode((user + ":" + password).encode()).decode()}
platform_user = basic("slipway", os.environ["REGISTRY_PASSWORD"])
def token(credentials, scope):
    url = "http://" + svc("api-server") + ":8080/registry/token?" + urllib.parse.urlencode({"service": svc("registry") + ":5000", "scope": scope})
    status, text = http("GET", url, headers=credentials)
    return {"Authorization": "Bearer " + json.loads(text)["token"]} if status == 200 else status
out["anonymousPush"] = http("POST", registry + "/v2/e2e/blobs/uploads/")[0]
out["basicPush"] = http("POST", registry + "/v2/e2e/blobs/uploads/", headers=platform_user)[0]
bearer = token(platform_user, "repository:e2e:pull,push")
out["authenticatedPushStart"] = http("POST", registry + "/v2/e2e/blobs/uploads/", headers=bearer)[0]
blob = b"{}"
digest = "sha256:" + hashlib.sha256(blob).hexdigest()
request = urllib.request.Request(registry + "/v2/e2e/blobs/uploads/", method="POST", headers=bearer)
with urllib.request.urlopen(request, timeout=120) as response: location = response.headers["Location"]
location = (location if location.startswith("http") else registry + location) + ("&" if "?" in location else "?") + "digest=" + digest
out["authenticatedPush"] = http("PUT", location, blob, {**bearer, "Content-Type": "application/octet-stream"})[0]
status, text = http("GET", registry + "/v2/_catalog", headers=token(platform_user, "registry:catalog:*"))
out["catalog"] = [status, "e2e" in (json.loads(text).get("repositories") or []) if status == 200 else text[:200]]
# a per-build credential, as the operator mints one: its repository only
build_user = "build/" + str(int(time.time()) + 600) + "/e2e-build"
build = basic(build_user, base64.urlsafe_b64encode(hmac.new(os.environ["BUILD_KEY"].encode(), build_user.encode(), hashlib.sha256).digest()).decode().rstrip("="))
out["buildOwnPush"] = http("POST", registry + "/v2/e2e-build/blobs/uploads/", headers=token(build, "repository:e2e-build:pull,push"))[0]
out["buildOtherPush"] = http("POST", registry + "/v2/e2e/blobs/uploads/", headers=token(build, "repository:e2e:pull,push"))[0]
out["buildWrongKey"] = token(basic(build_user, "not-the-hmac"), "repository:e2e-build:pull,push")
api = "http://" + svc("api-server") + ":8080/api/v1/platform"
out["apiAnonymous"] = http("GET", api)[0]
status, text = http("GET", api, headers={"Authorization": "Bearer " + os.environ["TOKEN"]})
out["api"] = [status, json.loads(text).get("phase") if status == 200 else text[:200]]
status, text = http("GET", "http://" + svc("web") + ":8080/")
out["ui"] = [status, "<html" in text.lower(), "/api/" in text]
print("RESULT " + json.dumps(out))
`;

/** A ServiceAccount allowed to read Platforms, and a token of it (the test's own, not the platform's). */
async function readerToken(namespace: string): Promise<string> {
  const rbac = adminConfig().makeApiClient(RbacAuthorizationV1Api);
  await core().createNamespacedServiceAccount({ namespace, body: { metadata: { name: "reader" } } });
  await rbac.createNamespacedRole({
    namespace,
    body: {
      metadata: { name: "reader" },
      rules: [
        { apiGroups: ["platform.slipway.dev"], resources: ["platforms"], verbs: ["get", "list", "watch"] },
      ],
    },
  });
  await rbac.createNamespacedRoleBinding({
    namespace,
    body: {
      metadata: { name: "reader" },
      roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "Role", name: "reader" },
      subjects: [{ kind: "ServiceAccount", name: "reader", namespace }],
    },
  });
  const request = await core().createNamespacedServiceAccountToken({
    namespace,
    name: "reader",
    body: { spec: { audiences: [], expirationSeconds: 3600 } },
  });
  return request.status?.token ?? "";
}

const secretEnv = (name: string, secret: string, key: string) => ({
  name,
  valueFrom: { secretKeyRef: { name: secret, key } },
});

async function runChecks(namespace: string, token: string): Promise<Record<string, unknown>> {
  const secrets = credentialSecrets("slipway");
  await core().createNamespacedPod({
    namespace,
    body: {
      metadata: { name: "checks" },
      spec: {
        ...realNodePlacement(),
        restartPolicy: "Never",
        containers: [
          {
            name: "checks",
            image: release?.images.mlflow ?? "",
            imagePullPolicy: "IfNotPresent",
            command: ["python3", "-c", checks],
            env: [
              { name: "NS", value: namespace },
              { name: "TOKEN", value: token },
              secretEnv("DB_USER", secrets.database, "username"),
              secretEnv("DB_PASSWORD", secrets.database, "password"),
              secretEnv("REGISTRY_PASSWORD", secrets.registry, "password"),
              secretEnv("BUILD_KEY", secrets.registry, "build-credentials-key"),
              secretEnv("AWS_ACCESS_KEY_ID", secrets.objectStore, "AWS_ACCESS_KEY_ID"),
              secretEnv("AWS_SECRET_ACCESS_KEY", secrets.objectStore, "AWS_SECRET_ACCESS_KEY"),
              { name: "AWS_DEFAULT_REGION", value: "us-east-1" },
            ],
          },
        ],
      },
    },
  });
  await eventually(
    "the checks pod finished",
    () => core().readNamespacedPod({ namespace, name: "checks" }),
    (pod) => pod.status?.phase === "Succeeded" || pod.status?.phase === "Failed",
    600_000,
  );
  const { stdout } = await kubectl("logs", "-n", namespace, "checks");
  const line = stdout.split("\n").find((l) => l.startsWith("RESULT "));
  if (!line) throw new Error(`the checks printed no result:\n${stdout}`);
  return JSON.parse(line.slice("RESULT ".length));
}

describe.sequential("the platform on the real node", skipFor(skipped), () => {
  let namespace: string;
  let removeNamespace: () => Promise<void>;
  let operator: OperatorProcess;

  beforeAll(async () => {
    ({ name: namespace, remove: removeNamespace } = await suiteNamespace("realplat"));
    operator = startOperator(namespace, { lean: true });
  });

  afterAll(async () => {
    await cli(namespace, "uninstall", "--yes", "--keep-crds", "--timeout", "5m").catch(() => {});
    await operator?.kill();
    await removeNamespace?.();
  });

  it("installs to Running for real; every service works with the generated credentials and refuses without", {
    timeout: 1_200_000,
  }, async () => {
    const install = await cli(
      namespace,
      "install",
      "--dev",
      "--version",
      "0.2.0",
      ...realNodeInstallFlags(),
      "--timeout",
      "15m",
    );
    expect(install.stderr, install.stdout).toBe("");
    expect(install.code).toBe(0);
    expect((await readPlatform(namespace)).status).toMatchObject({ phase: "Running", ready: "7/7" });

    const results = await runChecks(namespace, await readerToken(namespace));
    expect(results.login).toBe("ok");
    expect(results.wrongLogin).toMatch(/password authentication failed/);
    expect(results.noPasswordLogin).not.toBe("ok");
    expect((results.experiment as unknown[])[0]).toBe(200);
    expect(results.experimentInPostgres).toEqual(["e2e"]);
    expect(results.artifactUpload).toBe(200);
    expect(results.objects).toContainEqual(expect.stringMatching(/^mlflow\/e2e\/model\.txt$/));
    // token authentication: no anonymous or Basic request; the api-server's issuer hands out tokens
    expect(results.anonymousPush).toBe(401);
    expect(results.basicPush).toBe(401);
    expect(results.authenticatedPushStart).toBe(202);
    expect(results.authenticatedPush).toBe(201);
    expect(results.catalog).toEqual([200, true]);
    expect(results.buildOwnPush).toBe(202);
    expect(results.buildOtherPush).toBe(401);
    expect(results.buildWrongKey).toBe(401);
    expect(results.apiAnonymous).toBe(401);
    expect(results.api).toEqual([200, "Running"]);
    expect(results.ui).toEqual([200, true, false]);

    // MLflow's server-side jobs are off (contracts.ts): its container runs the server, no job runner
    // and no huey consumer (seven of them, each polling, when they are on)
    const { stdout: processes } = await kubectl(
      "exec",
      "-n",
      namespace,
      "deploy/slipway-mlflow",
      "-c",
      "mlflow",
      "--",
      "python3",
      "-c",
      listProcesses,
    );
    expect(processes).toMatch(/mlflow server/);
    expect(processes).not.toMatch(/huey|_job_runner/);
  });

  /** The pipelines tests run side by side on the platform, under one pipelines controller. */
  describe.concurrent("pipelines on the platform's own Provider", () => {
    let pipelines: Manager;
    beforeAll(async () => {
      pipelines = await startPipelinesController(namespace);
    });
    afterAll(async () => {
      await pipelines?.stop();
    });

    it("runs a Pipeline on the platform's own Provider: the real Argo controller's step pods, its status, the artifact in the object store", {
      timeout: 900_000,
    }, async () => {
      const provider = (await readPlatform(namespace)).status?.provider;
      expect(provider).toBe("slipway");
      {
        // the demo's pipeline (make demo runs the same steps)
        const run = await runDemoPipeline(adminConfig(), { namespace, platform: provider ?? "" }, "0.2.0");
        const workflowName = `${namespace}.demo-1`;
        const workflow = await readWorkflow(namespace, workflowName);
        // the completion is Argo's: its controller wrote the Workflow's phase, nothing in the test did
        expect(workflow.status?.phase, JSON.stringify(workflow.status?.nodes)).toBe("Succeeded");
        expect(run.status?.completionState).toBe("Succeeded");
        // every step from Argo's own record (the Workflow's node statuses), Succeeded with exit code 0
        const steps: RunStepStatus[] = run.status?.steps ?? [];
        expect(steps.map((step) => [step.name, step.phase, step.exitCode])).toEqual([
          ["train", "Succeeded", 0],
          ["evaluate", "Succeeded", 0],
        ]);
        for (const step of steps) expect(Date.parse(step.finishedAt ?? "")).toBeGreaterThan(0);
        expect(run.status?.failure).toBeUndefined();
        const writers = (workflow.metadata?.managedFields ?? []).map((f: { manager?: string }) => f.manager);
        expect(writers).toContain("workflow-controller");
        const pods = await workflowPods(namespace, workflowName);
        expect(
          pods.map((pod) => pod.metadata?.annotations?.["workflows.argoproj.io/node-name"]).sort(),
        ).toEqual([`${workflowName}.evaluate`, `${workflowName}.train`]);
        for (const pod of pods) {
          expect(pod.spec?.nodeName).toBe(realNodeName);
          const main = pod.status?.containerStatuses?.find((c) => c.name === "main");
          expect(main?.state?.terminated?.exitCode).toBe(0);
        }
        const [artifact] = run.status?.artifacts ?? [];
        expect(artifact?.name).toBe("model");
        expect(artifact?.location).toMatch(/^s3:\/\/slipway\/argo\//);
        const content = (await readPlatformObject(namespace, artifact?.location ?? "")).toString("latin1");
        expect(content).toContain(`trained; tracking http://slipway-mlflow.${namespace}.svc:5000`);
      }
    });

    it("retries a step that fails twice, with its backoff, on the real Argo controller: the Run succeeds and records the retries", {
      timeout: 900_000,
    }, async ({ onTestFinished }) => {
      const provider = (await readPlatform(namespace)).status?.provider ?? "";
      const image = workflowImages("0.2.0")?.step ?? "";
      expect(image).not.toBe("");
      {
        const run = await runRetriedPipeline(namespace, provider, image);
        const workflowName = `${namespace}.flaky-1`;
        const workflow = await readWorkflow(namespace, workflowName);
        expect(workflow.status?.phase, JSON.stringify(workflow.status?.nodes)).toBe("Succeeded");
        expect(run.status?.completionState).toBe("Succeeded");
        const template = workflow.spec.templates.find((t: { name: string }) => t.name === "step-flaky");
        expect(template.retryStrategy).toEqual({
          limit: 3,
          retryPolicy: "OnFailure",
          backoff: { duration: "2s", factor: 2 },
        });
        // Argo's record: a Retry node whose attempts are Pod nodes, failed twice (exit 3), then succeeded
        const nodes = Object.values(workflow.status?.nodes ?? {}) as {
          id: string;
          type: string;
          displayName: string;
          phase: string;
          startedAt: string;
          finishedAt: string;
          children?: string[];
          outputs?: { exitCode?: string };
        }[];
        const retry = nodes.find((node) => node.type === "Retry" && node.displayName === "flaky");
        const attempts = (retry?.children ?? []).map((id) => nodes.find((node) => node.id === id));
        expect(attempts.map((node) => [node?.phase, node?.outputs?.exitCode])).toEqual([
          ["Failed", "3"],
          ["Failed", "3"],
          ["Succeeded", "0"],
        ]);
        // the backoff: each retry started at least 2 s, then 4 s (factor 2), after the attempt before it finished
        const seconds = (time?: string) => Date.parse(time ?? "") / 1000;
        expect(seconds(attempts[1]?.startedAt) - seconds(attempts[0]?.finishedAt)).toBeGreaterThanOrEqual(2);
        expect(seconds(attempts[2]?.startedAt) - seconds(attempts[1]?.finishedAt)).toBeGreaterThanOrEqual(4);
        // the Run's status says the same: one step, Succeeded after 2 retries, exit code 0
        const steps: RunStepStatus[] = run.status?.steps ?? [];
        expect(steps.map((step) => [step.name, step.phase, step.retries, step.exitCode])).toEqual([
          ["flaky", "Succeeded", 2, 0],
        ]);
        expect(run.status?.failure).toBeUndefined();
        const pods = await workflowPods(namespace, workflowName);
        expect(pods).toHaveLength(3);
        for (const pod of pods) expect(pod.spec?.nodeName).toBe(realNodeName);

        // the step's log through the REST API, as a user who may read the Run and the pods' logs: the last attempt's
        const url = await startServer(namespace, {}, onTestFinished);
        const token = await serviceAccountToken(namespace, "step-log-reader");
        await grantRole(namespace, "step-log-reader", "step-log-reader", [
          { apiGroups: ["pipelines.slipway.dev"], resources: ["runs"], verbs: ["get"] },
          { apiGroups: [""], resources: ["pods"], verbs: ["list"] },
          { apiGroups: [""], resources: ["pods/log"], verbs: ["get"] },
        ]);
        const response = await fetch(`${url}/api/v1/namespaces/${namespace}/runs/flaky-1/steps/flaky/logs`, {
          headers: { authorization: `Bearer ${token}` },
        });
        const log = (await response.json()) as { pod: string; container: string; logs: string };
        expect(response.status, JSON.stringify(log)).toBe(200);
        expect(log.container).toBe("main");
        expect(log.logs).toContain("attempt 2");
        expect(log.logs).not.toContain("attempt 1");
        const logPod = pods.find((pod) => pod.metadata?.name === log.pod);
        expect(logPod?.metadata?.annotations?.["workflows.argoproj.io/node-name"]).toBe(
          `${workflowName}.flaky(2)`,
        );
      }
    });

    it("passes parameters and artifacts between steps on the real Argo controller: the values reach the steps that take them, the artifacts are in the object store", {
      timeout: 900_000,
    }, async () => {
      const provider = (await readPlatform(namespace)).status?.provider ?? "";
      const image = workflowImages("0.2.0")?.step ?? "";
      {
        const token = `${namespace}-${Date.now()}`;
        const run = await runIoPipeline(namespace, provider, image, token);
        const workflowName = `${namespace}.io-1`;
        const workflow = await readWorkflow(namespace, workflowName);
        expect(workflow.status?.phase, JSON.stringify(workflow.status?.nodes)).toBe("Succeeded");
        expect(run.status?.completionState, run.status?.failure).toBe("Succeeded");
        // the order comes from the inputs alone (no dependsOn): prepare, then train, then evaluate
        const steps: RunStepStatus[] = run.status?.steps ?? [];
        expect(steps.map((step) => [step.name, step.phase, step.exitCode])).toEqual([
          ["prepare", "Succeeded", 0],
          ["train", "Succeeded", 0],
          ["evaluate", "Succeeded", 0],
        ]);
        const at = (name: string) => Date.parse(steps.find((step) => step.name === name)?.startedAt ?? "");
        const finished = (name: string) =>
          Date.parse(steps.find((step) => step.name === name)?.finishedAt ?? "");
        expect(at("train")).toBeGreaterThanOrEqual(finished("prepare"));
        expect(at("evaluate")).toBeGreaterThanOrEqual(finished("train"));
        // Argo's record of the outputs: prepare's parameter read from its file
        const nodes = Object.values(workflow.status?.nodes ?? {}) as Any[];
        const prepare = nodes.find((node) => node.displayName === "prepare");
        expect(prepare?.outputs?.parameters).toContainEqual(
          expect.objectContaining({ name: "rows", value: "42" }),
        );
        // the values arrived: each step's own log says what it got (and a wrong one would have exited 4 or 5)
        const pods = await workflowPods(namespace, workflowName);
        const podOf = (step: string) =>
          pods.find(
            (pod) =>
              pod.metadata?.annotations?.["workflows.argoproj.io/node-name"] === `${workflowName}.${step}`,
          )?.metadata?.name ?? "";
        expect(await mainLog(namespace, podOf("train"))).toContain(
          `train got '42' 'dataset ${token}' '0.75'`,
        );
        expect(await mainLog(namespace, podOf("evaluate"))).toContain(
          `evaluate got rows=42 score=0.9 model=model of 42 rows from dataset ${token}`,
        );
        // every declared output artifact is in the Run's status, where it is in the platform's object store
        const artifacts: { name: string; location: string }[] = run.status?.artifacts ?? [];
        expect(artifacts.map((artifact) => artifact.name).sort()).toEqual(["prepare:dataset", "train:model"]);
        const model = artifacts.find((artifact) => artifact.name === "train:model")?.location ?? "";
        expect(model).toMatch(/^s3:\/\/slipway\/argo\//);
        expect((await readPlatformObject(namespace, model)).toString("latin1")).toContain(
          `model of 42 rows from dataset ${token}`,
        );
      }
    });

    it("caches a step on the real Argo controller: a second Run reuses the first one's execution (no pod), one with caching off runs it again", {
      timeout: 1_200_000,
    }, async () => {
      const provider = (await readPlatform(namespace)).status?.provider ?? "";
      const image = workflowImages("0.2.0")?.step ?? "";
      expect(image).not.toBe("");
      {
        const stepOf = (run: Any): RunStepStatus | undefined => run.status?.steps?.[0];
        const first = await runCachedPipeline(namespace, provider, image, { name: "cached-1" });
        expect(first.status.completionState).toBe("Succeeded");
        expect(first.status.caching).toEqual([{ step: "compute", enabled: true, maxAge: "1h" }]);
        expect(stepOf(first)?.cacheHit).toBe(false);
        expect(await workflowPods(namespace, `${namespace}.cached-1`)).toHaveLength(1);

        // Argo's controller saved the entry in the Provider's cache ConfigMap, labelled as its caches are
        const cache = await core().readNamespacedConfigMap({
          namespace,
          name: `slipway-step-cache.${provider}`,
        });
        expect(cache.metadata?.labels?.["workflows.argoproj.io/configmap-type"]).toBe("Cache");

        const second = await runCachedPipeline(namespace, provider, image, { name: "cached-2" });
        expect(second.status.completionState).toBe("Succeeded");
        expect(stepOf(second)).toMatchObject({ cacheHit: true, reusedRun: `${namespace}.cached-1` });
        expect(await workflowPods(namespace, `${namespace}.cached-2`)).toHaveLength(0);

        const fresh = await runCachedPipeline(namespace, provider, image, {
          name: "cached-3",
          caching: { enabled: false },
        });
        expect(fresh.status.completionState).toBe("Succeeded");
        expect(fresh.status.caching).toEqual([{ step: "compute", enabled: false, maxAge: "1h" }]);
        expect(stepOf(fresh)?.cacheHit).toBeUndefined();
        expect(await workflowPods(namespace, `${namespace}.cached-3`)).toHaveLength(1);
      }
    });

    it("runs a Forbid schedule on the real Argo controller: the minute due while a run goes is skipped, the next run starts after it finished", {
      timeout: 600_000,
    }, async () => {
      const provider = (await readPlatform(namespace)).status?.provider ?? "";
      const image = workflowImages("0.2.0")?.step ?? "";
      const { cronWorkflow, workflows } = await runForbidSchedule(namespace, provider, image);
      expect(cronWorkflow.spec).toMatchObject({ schedules: ["* * * * *"], concurrencyPolicy: "Forbid" });
      const [first, second] = workflows;
      // no overlap: the second run started only once the first (75 s, over a minute) had finished
      expect(first.status?.finishedAt, JSON.stringify(first.status)).toBeDefined();
      expect(Date.parse(second.status.startedAt)).toBeGreaterThanOrEqual(Date.parse(first.status.finishedAt));
      // and the minute in between was due while the first went: Argo skipped it rather than start a run
      expect(Date.parse(second.status.startedAt) - Date.parse(first.status.startedAt)).toBeGreaterThanOrEqual(
        110_000,
      );
    });
  });

  it("builds with the in-cluster buildah backend from the platform's object store into its registry, no further configuration; the same reference again is reused with no Job", {
    timeout: 900_000,
  }, async () => {
    const override = await core().readNamespacedConfigMap({ namespace, name: overrideConfigMapName });
    expect(override.metadata?.ownerReferences?.[0]).toMatchObject({ kind: "Platform", controller: true });
    const builds = await startPlatformBuilds(namespace);
    try {
      const { client, password } = await platformRegistry(namespace);
      const repository = `${namespace}/demo-model`;
      expect(await client.manifestDigest(repository, "v1")).toBeUndefined();
      // the demo's build (make demo runs the same step): its context uploaded to the platform's object store
      const built = await buildDemoImage(adminConfig(), { namespace, platform: "slipway" });
      expect(built.spec.artifactUri).toBe("s3://slipway/demo/model");
      const digest = await client.manifestDigest(repository, "v1");
      expect(digest).toMatch(/^sha256:[0-9a-f]{64}$/);
      expect(built.status).toMatchObject({
        phase: "Succeeded",
        reused: false,
        digest,
        image: `slipway-registry.${namespace}.svc:5000/${repository}:v1`,
      });
      const jobs = async () =>
        (await adminConfig().makeApiClient(BatchV1Api).listNamespacedJob({ namespace })).items.map(
          (job) => job.metadata?.name,
        );
      const [job, ...more] = await jobs();
      expect(more).toEqual([]);
      // it pushed with a credential of its own (its repository only), never the platform user's
      const pod = (
        await adminConfig()
          .makeApiClient(BatchV1Api)
          .readNamespacedJob({ namespace, name: job ?? "" })
      ).spec?.template.spec;
      expect(pod?.volumes?.find((v) => v.name === "registry-credentials")?.secret?.secretName).toBe(
        `${job}-registry`,
      );
      expect(JSON.stringify(pod)).not.toContain(credentialSecrets("slipway").registry);

      await createImageBuild(namespace, "model-again", { ...built.spec });
      const reused = await waitForPhase(namespace, "model-again", "Succeeded", 120_000);
      expect(reused.status).toMatchObject({ reused: true, digest });
      expect(await jobs()).toEqual([job]);
      expect(JSON.stringify([built, reused, builds.logs])).not.toContain(password);
    } finally {
      await builds.stop();
    }
  });

  it("a component broken for real makes patch exit 1 naming it and its pod's reason; fixing it returns to Running", {
    timeout: 1_200_000,
  }, async () => {
    const broken = await cli(
      namespace,
      "patch",
      "--set",
      'components.mlflow.env=[{name: MLFLOW_BACKEND_STORE_URI, value: "nosuchscheme://nowhere"}]',
      "--timeout",
      "10m",
    );
    expect(broken.code).toBe(1);
    expect(broken.stderr).toMatch(
      /platform slipway failed: mlflow: pod slipway-mlflow-[\w-]+: CrashLoopBackOff/,
    );
    // the container's own last words (its termination message), not only the kubelet's back-off
    expect(broken.stderr).toMatch(/nosuchscheme/);

    const fixed = await cli(namespace, "patch", "--set", "components.mlflow.env=[]", "--timeout", "10m");
    expect(fixed.code, fixed.stderr).toBe(0);
    expect((await readPlatform(namespace)).status?.phase).toBe("Running");
  });
});
