/** Each component rendered per its image's contract (src/platform/contracts.ts), and what it is handed. */
import { describe, expect, it } from "vitest";
import { parse as parseYaml } from "yaml";
import type { ComponentResource } from "../../../src/apis/platform/component.ts";
import { parseBuildsConfig } from "../../../src/builds/config.ts";
import { applyOverride, overrideKey } from "../../../src/builds/override.ts";
import { platformBuildsOverride } from "../../../src/platform/builds-wiring.ts";
import { findRelease } from "../../../src/platform/catalog.ts";
import { renderConfigMap, renderWorkload } from "../../../src/platform/component-objects.ts";
import { executorImage } from "../../../src/platform/contracts.ts";
import { credentialSecrets } from "../../../src/platform/credentials.ts";
import { renderComponents } from "../../../src/platform/render.ts";

const release = findRelease("0.1.0");
if (!release) throw new Error("release 0.1.0 missing");
const secrets = credentialSecrets("lab");
const components = renderComponents("lab", "team", {}, release);
const spec = (name: string) => {
  const found = components.find((c) => c.name === name);
  if (!found) throw new Error(`${name} not rendered`);
  return found.spec;
};
const resource = (name: string): ComponentResource => ({
  apiVersion: "platform.slipway.dev/v1beta1",
  kind: "Component",
  metadata: { name: `lab-${name}`, namespace: "team", uid: `u-${name}`, generation: 1 },
  spec: spec(name),
});
const pod = (name: string) => renderWorkload(resource(name)).spec?.template.spec;
const env = (name: string) => Object.fromEntries(spec(name).env.map((e) => [e.name, e]));
const secretRef = (secret: string, key: string) => ({ valueFrom: { secretKeyRef: { name: secret, key } } });

describe("component contracts", () => {
  it("postgres: its owner and password from the generated Secret, PGDATA below the mount point", () => {
    const vars = env("postgres");
    expect(vars.POSTGRES_USER).toMatchObject(secretRef(secrets.database, "username"));
    expect(vars.POSTGRES_PASSWORD).toMatchObject(secretRef(secrets.database, "password"));
    expect(vars.POSTGRES_DB?.value).toBe("slipway");
    expect(vars.PGDATA?.value).toBe("/var/lib/postgresql/data/pgdata");
    expect(pod("postgres")?.containers[0]?.readinessProbe).toMatchObject({ tcpSocket: { port: 5432 } });
  });

  it("object-store: MinIO's root credentials from the generated Secret, its health endpoints probed", () => {
    const vars = env("object-store");
    expect(vars.MINIO_ROOT_USER).toMatchObject(secretRef(secrets.objectStore, "AWS_ACCESS_KEY_ID"));
    expect(vars.MINIO_ROOT_PASSWORD).toMatchObject(secretRef(secrets.objectStore, "AWS_SECRET_ACCESS_KEY"));
    const container = pod("object-store")?.containers[0];
    expect(container?.args).toEqual(["server", "/data", "--address", ":9000"]);
    expect(container?.readinessProbe?.httpGet).toEqual({ path: "/minio/health/ready", port: 9000 });
    expect(container?.livenessProbe?.httpGet).toEqual({ path: "/minio/health/live", port: 9000 });
  });

  it("registry: token auth against the api-server's issuer, only the issuer's certificate mounted, deletes left off", () => {
    const vars = env("registry");
    expect(vars.REGISTRY_AUTH?.value).toBe("token");
    expect(vars.REGISTRY_AUTH_TOKEN_REALM?.value).toBe("http://lab-api-server.team.svc:8080/registry/token");
    expect(vars.REGISTRY_AUTH_TOKEN_SERVICE?.value).toBe("lab-registry.team.svc:5000");
    expect(vars.REGISTRY_AUTH_TOKEN_ISSUER?.value).toBe("lab-api-server.team.svc");
    expect(vars.REGISTRY_AUTH_TOKEN_ROOTCERTBUNDLE?.value).toBe("/auth/token-certificate");
    expect(Object.keys(vars).filter((name) => name.includes("HTPASSWD"))).toEqual([]);
    expect(vars.REGISTRY_STORAGE_DELETE_ENABLED).toBeUndefined();
    const template = pod("registry");
    const secretVolumes = template?.volumes?.filter((v) => v.secret);
    expect(secretVolumes).toEqual([
      {
        name: "token-certificate",
        secret: {
          secretName: secrets.registry,
          items: [{ key: "token-certificate", path: "token-certificate" }],
        },
      },
    ]);
    expect(template?.containers[0]?.volumeMounts).toContainEqual({
      name: "token-certificate",
      mountPath: "/auth",
      readOnly: true,
    });
  });

  it("api-server: the registry's token issuer, with its key, certificate, HMAC key and the platform user's password mounted, one key per directory", () => {
    const template = pod("api-server");
    const secretVolumes = template?.volumes?.filter((v) => v.secret) ?? [];
    const keys = ["token-signing-key", "token-certificate", "build-credentials-key", "password"];
    expect(secretVolumes.map((v) => v.secret)).toEqual(
      keys.map((key) => ({ secretName: secrets.registry, items: [{ key, path: key }] })),
    );
    const mounts = template?.containers[0]?.volumeMounts ?? [];
    for (const volume of secretVolumes) {
      const key = volume.secret?.items?.[0]?.key;
      expect(mounts).toContainEqual({
        name: volume.name,
        mountPath: `/var/run/slipway/registry-token/${key}`,
        readOnly: true,
      });
    }
    // no other component holds the signing key or the HMAC key
    for (const component of components.filter((c) => c.name !== "api-server"))
      expect(JSON.stringify(pod(component.name)), component.name).not.toMatch(
        /token-signing-key|build-credentials-key/,
      );
  });

  it("mlflow: `mlflow server` on every interface, its database URI composed in the container, no password in args", () => {
    const container = pod("mlflow")?.containers[0];
    expect(container?.command).toEqual(["mlflow", "server"]);
    expect(container?.args).toEqual([
      "--host",
      "0.0.0.0",
      "--port",
      "5000",
      "--workers",
      "1",
      "--artifacts-destination",
      "s3://slipway/mlflow",
    ]);
    const names = spec("mlflow").env.map((e) => e.name);
    const uri = env("mlflow").MLFLOW_BACKEND_STORE_URI?.value;
    expect(uri).toBe(
      "postgresql+psycopg2://$(DATABASE_USER):$(DATABASE_PASSWORD)@lab-postgres.team.svc:5432/slipway",
    );
    // $(VAR) expands only variables defined before it
    expect(names.indexOf("DATABASE_PASSWORD")).toBeLessThan(names.indexOf("MLFLOW_BACKEND_STORE_URI"));
    expect(env("mlflow").DATABASE_PASSWORD).toMatchObject(secretRef(secrets.database, "password"));
    expect(env("mlflow").AWS_SECRET_ACCESS_KEY).toMatchObject(
      secretRef(secrets.objectStore, "AWS_SECRET_ACCESS_KEY"),
    );
    expect(env("mlflow").MLFLOW_S3_ENDPOINT_URL?.value).toBe("http://lab-object-store.team.svc:9000");
    expect(env("mlflow").MLFLOW_SERVER_ALLOWED_HOSTS?.value?.split(",")).toEqual(
      expect.arrayContaining(["lab-mlflow", "lab-mlflow:5000", "lab-mlflow.team.svc:5000"]),
    );
    // no job runner and huey consumers (MLflow 3's server-side jobs) unless the Platform asks
    expect(env("mlflow").MLFLOW_SERVER_ENABLE_JOB_EXECUTION?.value).toBe("false");
    // the bucket is made before mlflow starts, in the same image (boto3)
    const init = pod("mlflow")?.initContainers?.[0];
    expect(init).toMatchObject({ name: "create-bucket", image: release.images.mlflow });
    expect(init?.command?.[0]).toBe("python3");
  });

  it("workflow-engine: namespaced to the platform's namespace, its ConfigMap, the release's executor", () => {
    const container = pod("workflow-engine")?.containers[0];
    expect(container?.args).toEqual([
      "--configmap",
      "lab-workflow-controller-configmap",
      "--executor-image",
      "quay.io/argoproj/argoexec:v3.6.2",
      "--namespaced",
      "--managed-namespace",
      "team",
    ]);
    expect(pod("workflow-engine")?.serviceAccountName).toBe("lab-workflow-engine");
    expect(env("workflow-engine").LEADER_ELECTION_IDENTITY?.valueFrom).toEqual({
      fieldRef: { fieldPath: "metadata.name" },
    });
    const configMap = renderConfigMap(resource("workflow-engine"));
    expect(configMap?.metadata).toMatchObject({
      name: "lab-workflow-controller-configmap",
      namespace: "team",
    });
    expect(configMap?.metadata?.ownerReferences?.[0]).toMatchObject({ uid: "u-workflow-engine" });
    const repository = configMap?.data?.artifactRepository ?? "";
    expect(repository).toContain("endpoint: lab-object-store.team.svc:9000");
    expect(repository).toContain(`name: ${secrets.objectStore}`);
    expect(repository).toContain("key: AWS_SECRET_ACCESS_KEY");
    expect(configMap?.data?.mainContainer).toContain("value: http://lab-mlflow.team.svc:5000");
    const latest = findRelease("0.2.0");
    if (latest) expect(executorImage(latest)).toBe("quay.io/argoproj/argoexec:v4.0.5");
  });

  it("workflow-engine: workflows' pods are placed where the engine is (Argo's workflowDefaults), only when it is placed", () => {
    expect(spec("workflow-engine").configMap?.data.workflowDefaults).toBeUndefined();
    const placement = {
      nodeSelector: { pool: "ml" },
      tolerations: [{ key: "pool", operator: "Equal" as const, value: "ml", effect: "NoSchedule" as const }],
    };
    const placed = renderComponents("lab", "team", { components: { "workflow-engine": placement } }, release);
    const engine = placed.find((c) => c.name === "workflow-engine")?.spec;
    expect(parseYaml(engine?.configMap?.data.workflowDefaults ?? "")).toEqual({ spec: placement });
    expect(engine?.nodeSelector).toEqual(placement.nodeSelector);
    // another component's placement is not the workflows'
    const other = renderComponents("lab", "team", { components: { mlflow: placement } }, release);
    expect(
      other.find((c) => c.name === "workflow-engine")?.spec.configMap?.data.workflowDefaults,
    ).toBeUndefined();
  });

  it("api-server binds every interface, serves its own Platform and believes the Ingress's X-Forwarded-For; web serves the UI alone", () => {
    expect(pod("api-server")?.containers[0]?.args).toEqual([
      "server",
      "--host",
      "0.0.0.0",
      "--port",
      "8080",
      "--namespace",
      "team",
      "--platform",
      "lab",
      "--trust-proxy",
      "10.0.0.0/8,172.16.0.0/12,192.168.0.0/16,fc00::/7",
      "--registry-token-dir",
      "/var/run/slipway/registry-token",
    ]);
    const web = pod("web")?.containers[0];
    expect(web?.args).toEqual(["server", "--ui-only", "--host", "0.0.0.0", "--port", "8080"]);
    expect(web?.readinessProbe?.httpGet).toEqual({ path: "/", port: 8080 });
    expect(web?.livenessProbe?.httpGet).toEqual({ path: "/healthz", port: 8080 });
  });

  it("every container has readiness and liveness probes and reports its last words as termination message", () => {
    for (const component of components) {
      const container = pod(component.name)?.containers[0];
      expect(container?.readinessProbe, component.name).toBeDefined();
      expect(container?.livenessProbe, component.name).toBeDefined();
      expect(container?.terminationMessagePolicy).toBe("FallbackToLogsOnError");
    }
  });

  it("liveness starts only after a startup probe passed (10 minutes for a slow start), each probe waiting 5 s", () => {
    for (const component of components) {
      const container = pod(component.name)?.containers[0];
      const { startupProbe, livenessProbe, readinessProbe } = container ?? {};
      expect(startupProbe?.httpGet ?? startupProbe?.tcpSocket, component.name).toEqual(
        livenessProbe?.httpGet ?? livenessProbe?.tcpSocket,
      );
      expect((startupProbe?.periodSeconds ?? 0) * (startupProbe?.failureThreshold ?? 0)).toBe(600);
      expect(livenessProbe?.initialDelaySeconds).toBeUndefined();
      for (const probe of [startupProbe, livenessProbe, readinessProbe])
        expect(probe?.timeoutSeconds).toBe(5);
    }
  });

  it("no credential is a literal: every password, secret or key variable comes from a Secret", () => {
    for (const component of components) {
      for (const variable of component.spec.env) {
        if (/PASSWORD|SECRET|_KEY/.test(variable.name)) {
          expect(variable.value, `${component.name} ${variable.name}`).toBeUndefined();
          expect(variable.valueFrom?.secretKeyRef, `${component.name} ${variable.name}`).toBeDefined();
        }
      }
    }
  });

  it("each service's endpoint in the cluster", () => {
    const endpoints = Object.fromEntries(components.map((c) => [c.name, c.endpoint]));
    expect(endpoints).toEqual({
      postgres: "postgresql://lab-postgres.team.svc:5432/slipway",
      "object-store": "http://lab-object-store.team.svc:9000",
      registry: "lab-registry.team.svc:5000",
      mlflow: "http://lab-mlflow.team.svc:5000",
      "workflow-engine": undefined,
      "api-server": "http://lab-api-server.team.svc:8080",
      web: "http://lab-web.team.svc:8080",
    });
  });
});

describe("the platform's builds override", () => {
  it("merges over the operator's builds configuration: the platform's registry and store, with their Secrets", () => {
    // the tenancy rules refuse a per-namespace registry unless the operator's configuration grants it
    const base = parseBuildsConfig({
      registry: { url: "elsewhere.example.com" },
      tenancy: {
        allowedHosts: ["lab-object-store.team.svc:9000"],
        namespaces: { team: { registryOverride: true } },
      },
    });
    const platform = {
      apiVersion: "platform.slipway.dev/v1beta1",
      kind: "Platform",
      metadata: { name: "lab", namespace: "team", uid: "p-1" },
      spec: {},
    };
    const configMap = platformBuildsOverride(platform as never);
    expect(configMap.metadata?.ownerReferences?.[0]).toMatchObject({ uid: "p-1" });
    const merged = applyOverride(base, "team", configMap.data);
    if ("error" in merged) throw new Error(merged.error);
    expect(merged.config.registry).toMatchObject({
      url: "lab-registry.team.svc:5000",
      credentialsSecret: secrets.registry,
      insecure: true,
    });
    expect(merged.config.storage?.s3).toMatchObject({
      endpoint: "http://lab-object-store.team.svc:9000",
      forcePathStyle: true,
      credentialsSecret: secrets.objectStore,
    });
    expect(Object.keys(configMap.data ?? {})).toEqual([overrideKey]);
  });
});
