/**
 * The component catalog: what each of the platform's services is (workload, ports, storage,
 * dependencies) and how it is started, each per the documented contract of the image it runs (the
 * comment above each entry cites it). Credentials reach the services only by secretKeyRef.
 */
import { dirname } from "node:path";
import type { ComponentName } from "../apis/platform/schemas.ts";
import type { Release } from "./catalog.ts";
import { credentialKeys, credentialSecrets } from "./credentials.ts";
import { serviceName } from "./names.ts";
import {
  issuerMounts,
  registryRootBundle,
  registryTokenDir,
  registryTokenSettings,
} from "./registry-token.ts";
import { workflowControllerConfigMap, workflowControllerConfigMapName } from "./workflow-engine.ts";
import { workflowImages } from "./workflow-images.ts";

/** Which Platform storage field sizes a component's volume. */
export type SizeField = "artifactsSize" | "registrySize" | "builderCacheSize" | "databaseSize";

/** Where a component is rendered: its Platform's name and namespace, and the release. */
export interface RenderContext {
  platform: string;
  namespace: string;
  release: Release;
  /** The component's own placement (the Platform's override of it), where its pods go. */
  placement?: Placement;
  /** Proxies whose X-Forwarded-For the api-server believes (trusted-proxies.ts); none: no flag. */
  trustedProxies?: readonly string[];
}

export interface Placement {
  nodeSelector?: Record<string, string>;
  tolerations?: Record<string, unknown>[];
}

export interface EnvVar {
  name: string;
  value?: string;
  valueFrom?: { secretKeyRef?: { name: string; key: string }; fieldRef?: { fieldPath: string } };
}

export interface CatalogComponent {
  name: ComponentName;
  workload: "Deployment" | "StatefulSet";
  port?: { name: string; port: number };
  /** HTTP paths probed on the port; without them the probes open a TCP connection to it. */
  readinessPath?: string;
  livenessPath?: string;
  /** Replaces the image's entrypoint (only where the image has none that starts the service). */
  command?: string[];
  args?: (context: RenderContext) => string[];
  /** Environment the service needs, given how to reach the other services. */
  env: (context: RenderContext) => EnvVar[];
  volume?: { name: string; mountPath: string; sizeField: SizeField };
  secretMounts?: (
    context: RenderContext,
  ) => { name: string; secretName: string; key: string; mountPath: string }[];
  initContainers?: (context: RenderContext) => { name: string; command: string[]; env: EnvVar[] }[];
  configMap?: (context: RenderContext) => { name: string; data: Record<string, string> };
  /** How the service is addressed in the cluster (shown in the Platform's status). */
  endpoint?: (context: RenderContext) => string;
  ingressPath?: string;
  dependsOn: ComponentName[];
  /** The pods run as their own ServiceAccount, named after the Component, not the namespace's default. */
  ownServiceAccount?: boolean;
}

/** The fully qualified name of a component's Service, as pods of any namespace reach it. */
const serviceHost = (context: RenderContext, component: ComponentName) =>
  `${serviceName(context.platform, component)}.${context.namespace}.svc`;

/** The object store's bucket: MLflow's artifacts, Argo's artifact repository, build contexts. */
export const platformBucket = "slipway";

export const secretEnv = (name: string, secret: string, key: string): EnvVar => ({
  name,
  valueFrom: { secretKeyRef: { name: secret, key } },
});

/** The S3 client settings every consumer of the object store gets (AWS SDK / boto3 variable names). */
export function objectStoreClientEnv(context: RenderContext): EnvVar[] {
  const secret = credentialSecrets(context.platform).objectStore;
  return [
    secretEnv("AWS_ACCESS_KEY_ID", secret, credentialKeys.objectStore.accessKey),
    secretEnv("AWS_SECRET_ACCESS_KEY", secret, credentialKeys.objectStore.secretKey),
    { name: "AWS_DEFAULT_REGION", value: "us-east-1" },
  ];
}

export const objectStoreUrl = (context: RenderContext) =>
  `http://${serviceHost(context, "object-store")}:9000`;

/** Creates the platform's bucket unless it exists (boto3, which the mlflow image documents). */
const createBucketScript = `import os, boto3, botocore
s3 = boto3.client("s3", endpoint_url=os.environ["MLFLOW_S3_ENDPOINT_URL"])
try:
    s3.head_bucket(Bucket=os.environ["BUCKET"])
except botocore.exceptions.ClientError:
    s3.create_bucket(Bucket=os.environ["BUCKET"])
print("bucket " + os.environ["BUCKET"] + " ready")`;

const httpEndpoint = (component: ComponentName, port: number) => (context: RenderContext) =>
  `http://${serviceHost(context, component)}:${port}`;

export const catalog: readonly CatalogComponent[] = [
  // https://hub.docker.com/_/postgres ("Environment Variables", "PGDATA"): POSTGRES_PASSWORD is
  // required (initdb refuses without it), POSTGRES_USER owns POSTGRES_DB; PGDATA a subdirectory of the
  // mounted volume (a mount point's lost+found breaks initdb); listens on 5432, runs as uid 999.
  {
    name: "postgres",
    workload: "StatefulSet",
    port: { name: "postgres", port: 5432 },
    env: ({ platform }) => {
      const secret = credentialSecrets(platform).database;
      return [
        secretEnv("POSTGRES_USER", secret, credentialKeys.database.username),
        secretEnv("POSTGRES_PASSWORD", secret, credentialKeys.database.password),
        { name: "POSTGRES_DB", value: "slipway" },
        { name: "PGDATA", value: "/var/lib/postgresql/data/pgdata" },
      ];
    },
    volume: { name: "database", mountPath: "/var/lib/postgresql/data", sizeField: "databaseSize" },
    endpoint: (context) => `postgresql://${serviceHost(context, "postgres")}:5432/slipway`,
    dependsOn: [],
  },
  // https://min.io/docs/minio/linux/reference/minio-server/settings/root-credentials.html
  // (MINIO_ROOT_USER, MINIO_ROOT_PASSWORD: no default credentials), `minio server /data` on :9000,
  // health https://min.io/docs/minio/linux/operations/monitoring/healthcheck-probe.html.
  {
    name: "object-store",
    workload: "Deployment",
    port: { name: "s3", port: 9000 },
    readinessPath: "/minio/health/ready",
    livenessPath: "/minio/health/live",
    args: () => ["server", "/data", "--address", ":9000"],
    env: ({ platform }) => {
      const secret = credentialSecrets(platform).objectStore;
      return [
        secretEnv("MINIO_ROOT_USER", secret, credentialKeys.objectStore.accessKey),
        secretEnv("MINIO_ROOT_PASSWORD", secret, credentialKeys.objectStore.secretKey),
      ];
    },
    volume: { name: "artifacts", mountPath: "/data", sizeField: "artifactsSize" },
    endpoint: httpEndpoint("object-store", 9000),
    dependsOn: [],
  },
  // https://distribution.github.io/distribution/about/configuration/ ("Override specific
  // configuration options": REGISTRY_<section>_<key>; "auth: token": realm, service, issuer,
  // rootcertbundle, all required), https://distribution.github.io/distribution/spec/auth/token/ (the
  // client gets a Bearer token from the realm, which the registry checks: signed by a key whose
  // certificate chains to the root bundle, `iss` = issuer, `aud` = service, within `exp`/`nbf`; the
  // `access` claim decides each repository action) and /spec/auth/jwt/. The issuer is the api-server
  // (registry-token.ts); only its certificate is mounted here. Storage at /var/lib/registry, :5000;
  // deletes stay off (the default: nothing deletes images). `/` answers 200 without authentication
  // (the registry's own health route for balancers).
  {
    name: "registry",
    workload: "Deployment",
    port: { name: "registry", port: 5000 },
    readinessPath: "/",
    livenessPath: "/",
    env: ({ platform, namespace }) => {
      const token = registryTokenSettings(platform, namespace);
      return [
        { name: "REGISTRY_AUTH", value: "token" },
        { name: "REGISTRY_AUTH_TOKEN_REALM", value: token.realm },
        { name: "REGISTRY_AUTH_TOKEN_SERVICE", value: token.service },
        { name: "REGISTRY_AUTH_TOKEN_ISSUER", value: token.issuer },
        { name: "REGISTRY_AUTH_TOKEN_ROOTCERTBUNDLE", value: registryRootBundle },
      ];
    },
    secretMounts: ({ platform }) => [
      {
        name: "token-certificate",
        secretName: credentialSecrets(platform).registry,
        key: credentialKeys.registry.tokenCertificate,
        mountPath: dirname(registryRootBundle),
      },
    ],
    volume: { name: "registry", mountPath: "/var/lib/registry", sizeField: "registrySize" },
    endpoint: (context) => `${serviceHost(context, "registry")}:5000`,
    dependsOn: [],
  },
  // https://mlflow.org/docs/latest/cli.html#mlflow-server: `mlflow server --host --port`, the backend
  // store from MLFLOW_BACKEND_STORE_URI (the option's documented env variable, so the password is in
  // no argument; composed by Kubernetes' $(VAR) expansion from secretKeyRef variables), artifacts
  // proxied to --artifacts-destination s3://…; the S3 client (boto3) reads MLFLOW_S3_ENDPOINT_URL and
  // AWS_*. /health answers OK. MLflow ≥ 3.5 accepts only the Host headers MLFLOW_SERVER_ALLOWED_HOSTS
  // names (https://mlflow.org/docs/latest/ml/tracking/server/security/configuration): its Service's
  // names, and pod addresses (the kubelet's probes). MLflow 3 (3.17 here) also starts server-side job
  // execution unless MLFLOW_SERVER_ENABLE_JOB_EXECUTION is false
  // (https://mlflow.org/docs/latest/api_reference/python_api/mlflow.environment_variables.html): a job
  // runner and a huey consumer process per queue (seven in 3.17, about 220 MB each, each polling its
  // SQLite store), for the GenAI jobs (prompt optimization, online trace scoring) that tracking and
  // the model registry do not use. Off here; a Platform that wants them sets it to true in
  // spec.components.mlflow.env (the last value of a name wins). The image: Slipway's mlflow image
  // (mlflow with psycopg2 and boto3, tools/images/).
  {
    name: "mlflow",
    workload: "Deployment",
    port: { name: "http", port: 5000 },
    readinessPath: "/health",
    livenessPath: "/health",
    command: ["mlflow", "server"],
    args: () => [
      "--host",
      "0.0.0.0",
      "--port",
      "5000",
      "--workers",
      "1",
      "--artifacts-destination",
      `s3://${platformBucket}/mlflow`,
    ],
    env: (context) => [
      ...mlflowEnv(context),
      { name: "MLFLOW_SERVER_ALLOWED_HOSTS", value: mlflowAllowedHosts(context) },
      { name: "MLFLOW_SERVER_ENABLE_JOB_EXECUTION", value: "false" },
    ],
    initContainers: (context) => [
      {
        name: "create-bucket",
        command: ["python3", "-c", createBucketScript],
        env: [...mlflowEnv(context), { name: "BUCKET", value: platformBucket }],
      },
    ],
    endpoint: httpEndpoint("mlflow", 5000),
    dependsOn: ["postgres", "object-store"],
  },
  // https://argo-workflows.readthedocs.io/en/latest/managed-namespace/ (--namespaced,
  // --managed-namespace), .../workflow-controller-configmap/ (--configmap, artifactRepository,
  // mainContainer), --executor-image; its manifests' LEADER_ELECTION_IDENTITY (required unless leader
  // election is off) and the health server on :6060 /healthz. RBAC: workflow-engine.ts.
  {
    name: "workflow-engine",
    workload: "Deployment",
    port: { name: "health", port: 6060 },
    readinessPath: "/healthz",
    livenessPath: "/healthz",
    args: (context) => [
      "--configmap",
      workflowControllerConfigMapName(context.platform),
      "--executor-image",
      executorImage(context.release),
      "--namespaced",
      "--managed-namespace",
      context.namespace,
    ],
    env: () => [
      { name: "LEADER_ELECTION_IDENTITY", valueFrom: { fieldRef: { fieldPath: "metadata.name" } } },
    ],
    configMap: (context) => ({
      name: workflowControllerConfigMapName(context.platform),
      data: workflowControllerConfigMap({
        bucket: platformBucket,
        objectStoreHost: `${serviceHost(context, "object-store")}:9000`,
        credentialsSecret: credentialSecrets(context.platform).objectStore,
        accessKey: credentialKeys.objectStore.accessKey,
        secretKey: credentialKeys.objectStore.secretKey,
        trackingUri: httpEndpoint("mlflow", 5000)(context),
        ...(context.placement ? { placement: context.placement } : {}),
      }),
    }),
    dependsOn: ["object-store"],
    ownServiceAccount: true,
  },
  // `slipway server` (src/cli/server.ts): --host 0.0.0.0 in a pod (loopback is the default), the
  // Platform it serves by --namespace/--platform; /healthz. Its ServiceAccount reviews tokens.
  // --trust-proxy: behind the Ingress the client is in X-Forwarded-For (its failure allowance).
  // --registry-token-dir: it issues the registry's tokens (registry-token.ts), from the keys mounted there.
  {
    name: "api-server",
    workload: "Deployment",
    port: { name: "http", port: 8080 },
    readinessPath: "/healthz",
    livenessPath: "/healthz",
    args: ({ platform, namespace, trustedProxies }) => [
      "server",
      "--host",
      "0.0.0.0",
      "--port",
      "8080",
      "--namespace",
      namespace,
      "--platform",
      platform,
      ...(trustedProxies?.length ? ["--trust-proxy", trustedProxies.join(",")] : []),
      "--registry-token-dir",
      registryTokenDir,
    ],
    env: () => [],
    secretMounts: ({ platform }) => issuerMounts(platform),
    volume: { name: "builder-cache", mountPath: "/cache", sizeField: "builderCacheSize" },
    endpoint: httpEndpoint("api-server", 8080),
    ingressPath: "/api",
    dependsOn: ["postgres", "object-store", "registry"],
    ownServiceAccount: true,
  },
  // `slipway server --ui-only`: the built UI and /healthz, no API and no Kubernetes identity (the
  // Ingress sends /api to the api-server); see docs/platform.md for why web stays its own component.
  {
    name: "web",
    workload: "Deployment",
    port: { name: "http", port: 8080 },
    readinessPath: "/",
    livenessPath: "/healthz",
    args: () => ["server", "--ui-only", "--host", "0.0.0.0", "--port", "8080"],
    env: () => [],
    endpoint: httpEndpoint("web", 8080),
    ingressPath: "/",
    dependsOn: ["api-server"],
  },
];

/** The Host headers MLflow answers: its Service by each of its names, with and without the port; pod IPs. */
function mlflowAllowedHosts(context: RenderContext): string {
  const service = serviceName(context.platform, "mlflow");
  const names = [service, `${service}.${context.namespace}`, `${service}.${context.namespace}.svc`];
  const withCluster = [...names, `${names[2]}.cluster.local`];
  return [
    ...withCluster.flatMap((name) => [name, `${name}:5000`]),
    "localhost:*",
    "10.*",
    "172.*",
    "192.168.*",
  ].join(",");
}

function mlflowEnv(context: RenderContext): EnvVar[] {
  const database = credentialSecrets(context.platform).database;
  const postgres = `${serviceHost(context, "postgres")}:5432`;
  return [
    secretEnv("DATABASE_USER", database, credentialKeys.database.username),
    secretEnv("DATABASE_PASSWORD", database, credentialKeys.database.password),
    {
      // the driver named: SQLAlchemy 2.1's default for postgresql:// is psycopg 3, the image has psycopg2
      name: "MLFLOW_BACKEND_STORE_URI",
      value: `postgresql+psycopg2://$(DATABASE_USER):$(DATABASE_PASSWORD)@${postgres}/slipway`,
    },
    { name: "MLFLOW_S3_ENDPOINT_URL", value: objectStoreUrl(context) },
    ...objectStoreClientEnv(context),
  ];
}

/** The Argo executor image of a release (pinned with it: workflow-images.ts). */
export function executorImage(release: Release): string {
  const images = release.workflowImages ?? workflowImages(release.version);
  if (!images) throw new Error(`release ${release.version} names no workflow executor image`);
  return images.executor;
}
