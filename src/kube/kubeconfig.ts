/**
 * Kubeconfig loading for the operator, without @kubernetes/client-node: its config module imports the
 * client's whole generated API (1,001 modules, +71 MB resident, measured in docs/runtime.md). Handled
 * here: one kubeconfig file's current (or named) context with certificates, a token or basic auth, and
 * a pod's in-cluster credentials. Anything else (exec or auth-provider plugins, a proxy, several
 * $KUBECONFIG files) is loaded by client-node's KubeConfig, imported only then.
 */
import { existsSync, readFileSync } from "node:fs";
import type https from "node:https";
import { isIPv6 } from "node:net";
import { homedir } from "node:os";
import { delimiter, dirname, join, resolve } from "node:path";
import { parseYaml } from "../lib/yaml.ts";

/** What the REST client needs of a kubeconfig; @kubernetes/client-node's KubeConfig is one too. */
export interface ClusterAccess {
  getCurrentCluster(): { readonly server: string } | null;
  /** Sets TLS material and auth headers on `options`; called again whenever credentials may have rotated. */
  applyToHTTPSOptions(options: https.RequestOptions): Promise<void>;
}

/** Inline data (base64, as in a kubeconfig) or a file read on every use (certificates rotate). */
type Material = { data: string } | { file: string };

/** One context resolved to what a connection needs. */
export interface ContextCredentials {
  server: string;
  ca?: Material;
  cert?: Material;
  key?: Material;
  token?: string;
  tokenFile?: string;
  basic?: { username: string; password: string };
  impersonate?: string;
  skipTLSVerify: boolean;
  tlsServerName?: string;
}

export const inClusterDir = "/var/run/secrets/kubernetes.io/serviceaccount";

type Entry = Record<string, unknown>;
const record = (value: unknown): Entry =>
  value !== null && typeof value === "object" && !Array.isArray(value) ? (value as Entry) : {};
const text = (value: unknown): string | undefined => (typeof value === "string" && value ? value : undefined);

function named(document: Entry, list: "clusters" | "users" | "contexts", name: string, field: string): Entry {
  const entries = Array.isArray(document[list]) ? (document[list] as unknown[]) : [];
  const found = entries.map(record).find((entry) => entry.name === name);
  if (!found) throw new Error(`${field} names ${list.slice(0, -1)} "${name}", which is not in ${list}`);
  const body = list === "contexts" ? "context" : list === "users" ? "user" : "cluster";
  return record(found[body]);
}

function material(entry: Entry, dataField: string, fileField: string, baseDir: string): Material | undefined {
  const data = text(entry[dataField]);
  if (data) return { data };
  const file = text(entry[fileField]);
  return file ? { file: resolve(baseDir, file) } : undefined;
}

/** Why client-node must load this context (a plugin or proxy this module does not implement), if it must. */
function needsClientNode(cluster: Entry, user: Entry): string | undefined {
  if (user.exec) return "users[].user.exec";
  if (user["auth-provider"]) return "users[].user.auth-provider";
  if (cluster["proxy-url"]) return "clusters[].cluster.proxy-url";
  return undefined;
}

/**
 * Pure: the credentials of a parsed kubeconfig's context (`context`, else its current-context), paths
 * resolved against `baseDir`; or the field that needs client-node's loader.
 */
export function contextCredentials(
  document: Entry,
  baseDir: string,
  context?: string,
): ContextCredentials | { needsClientNode: string } {
  const contextName = context ?? text(document["current-context"]);
  if (!contextName) throw new Error("the kubeconfig names no current-context (use --context)");
  const contextEntry = named(document, "contexts", contextName, context ? "--context" : "current-context");
  const clusterName = text(contextEntry.cluster);
  if (!clusterName) throw new Error(`contexts "${contextName}": context.cluster is missing`);
  const cluster = named(document, "clusters", clusterName, `contexts "${contextName}"`);
  const userName = text(contextEntry.user);
  const user = userName ? named(document, "users", userName, `contexts "${contextName}"`) : {};
  const plugin = needsClientNode(cluster, user);
  if (plugin) return { needsClientNode: plugin };
  const server = text(cluster.server);
  if (!server) throw new Error(`clusters "${clusterName}": cluster.server is missing`);
  const username = text(user.username);
  const tokenFile = text(user["token-file"]);
  return {
    server: server.replace(/\/$/, ""),
    ca: material(cluster, "certificate-authority-data", "certificate-authority", baseDir),
    cert: material(user, "client-certificate-data", "client-certificate", baseDir),
    key: material(user, "client-key-data", "client-key", baseDir),
    token: text(user.token),
    tokenFile: tokenFile ? resolve(baseDir, tokenFile) : undefined,
    basic: username ? { username, password: text(user.password) ?? "" } : undefined,
    impersonate: text(user.as),
    skipTLSVerify: cluster["insecure-skip-tls-verify"] === true,
    tlsServerName: text(cluster["tls-server-name"]),
  };
}

/** Pure: a pod's own credentials, from the service environment variables and the service-account directory. */
export function inClusterCredentials(env: NodeJS.ProcessEnv, dir = inClusterDir): ContextCredentials {
  const host = env.KUBERNETES_SERVICE_HOST;
  const port = env.KUBERNETES_SERVICE_PORT;
  if (!host || !port)
    throw new Error("in-cluster credentials need KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT");
  const scheme = ["80", "8080", "8001"].includes(port) ? "http" : "https";
  return {
    server: `${scheme}://${isIPv6(host) ? `[${host}]` : host}:${port}`,
    ca: { file: join(dir, "ca.crt") },
    tokenFile: join(dir, "token"),
    skipTLSVerify: false,
  };
}

const read = (material: Material | undefined): Buffer | undefined =>
  material === undefined
    ? undefined
    : "data" in material
      ? Buffer.from(material.data, "base64")
      : readFileSync(material.file);

/** A ClusterAccess over resolved credentials; files (certificates, the token) are read on every call. */
export class KubeconfigAccess implements ClusterAccess {
  readonly #credentials: ContextCredentials;

  constructor(credentials: ContextCredentials) {
    this.#credentials = credentials;
  }

  getCurrentCluster(): { readonly server: string } {
    return { server: this.#credentials.server };
  }

  async applyToHTTPSOptions(options: https.RequestOptions): Promise<void> {
    const credentials = this.#credentials;
    const headers: Record<string, string> = {};
    if (credentials.skipTLSVerify) options.rejectUnauthorized = false;
    if (credentials.tlsServerName) options.servername = credentials.tlsServerName;
    options.ca = read(credentials.ca) ?? options.ca;
    options.cert = read(credentials.cert) ?? options.cert;
    options.key = read(credentials.key) ?? options.key;
    const token = credentials.token ?? (credentials.tokenFile && readFileSync(credentials.tokenFile, "utf8"));
    if (token) headers.Authorization = `Bearer ${token.trim()}`;
    if (credentials.basic) options.auth = `${credentials.basic.username}:${credentials.basic.password}`;
    if (credentials.impersonate) headers["Impersonate-User"] = credentials.impersonate;
    options.headers = { ...(options.headers as Record<string, string> | undefined), ...headers };
  }
}

/** A kubeconfig's text as an object: JSON as is; YAML through the yaml package, loaded only then. */
function parseKubeconfig(path: string): Entry {
  const source = readFileSync(path, "utf8");
  if (source.trimStart().startsWith("{")) return record(JSON.parse(source));
  return record(parseYaml(source));
}

type Source = { file: string } | { files: string[] } | { inCluster: true };

/** Pure: where the kubeconfig comes from, in client-node's order (flag, $KUBECONFIG, ~/.kube/config, the pod's account). */
export function kubeconfigSource(
  flag: string | undefined,
  env: NodeJS.ProcessEnv,
  exists: (path: string) => boolean,
  home = homedir(),
  dir = inClusterDir,
): Source {
  if (flag) return { file: flag };
  const listed = (env.KUBECONFIG ?? "").split(delimiter).filter(Boolean);
  if (listed.length === 1) return { file: listed[0] as string };
  if (listed.length > 1) return { files: listed };
  const own = join(home, ".kube", "config");
  if (exists(own)) return { file: own };
  if (exists(join(dir, "token"))) return { inCluster: true };
  throw new Error(
    `no kubeconfig: no --kubeconfig, $KUBECONFIG, ${own} or in-cluster token (${join(dir, "token")})`,
  );
}

/** client-node's KubeConfig for what this module does not load itself. */
async function clientNodeAccess(source: Source, context?: string): Promise<ClusterAccess> {
  const { KubeConfig } = await import("@kubernetes/client-node");
  const config = new KubeConfig();
  if ("file" in source) config.loadFromFile(source.file);
  else config.loadFromDefault();
  if (context) {
    if (!config.getContextObject(context))
      throw new Error(`--context names context "${context}", which is not in contexts`);
    config.setCurrentContext(context);
  }
  if (!config.getCurrentCluster()) throw new Error("the kubeconfig names no current cluster (use --context)");
  return config;
}

/**
 * The credentials a process runs with: `--kubeconfig`, else $KUBECONFIG, ~/.kube/config, else the pod's
 * service account; at `context` if given. Errors name the file and the field.
 */
export async function loadClusterAccess(
  options: { kubeconfig?: string; context?: string; env?: NodeJS.ProcessEnv } = {},
): Promise<ClusterAccess> {
  const env = options.env ?? process.env;
  const source = kubeconfigSource(options.kubeconfig, env, existsSync);
  if ("inCluster" in source) return new KubeconfigAccess(inClusterCredentials(env));
  if ("files" in source) return clientNodeAccess(source, options.context);
  let credentials: ReturnType<typeof contextCredentials>;
  try {
    credentials = contextCredentials(parseKubeconfig(source.file), dirname(source.file), options.context);
  } catch (error) {
    throw new Error(`kubeconfig ${source.file}: ${(error as Error).message}`);
  }
  if ("needsClientNode" in credentials) return clientNodeAccess(source, options.context);
  return new KubeconfigAccess(credentials);
}
