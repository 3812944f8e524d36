/**
 * What a namespace's builds may make the operator do with the platform's credentials: push only to
 * the platform's registry host, only under the namespace's repository prefix, and reach only hosts
 * the platform allows. A namespace may go beyond that only where the platform configuration grants
 * it (tenancy.namespaces). Pure functions only.
 */
import { posix } from "node:path";
import { quantityValue } from "../lib/quantity.ts";
import type { BuildsConfig } from "./config.ts";
import { type ImageReference, registryHost, registryPath } from "./naming.ts";

/** Where a namespace's images may go. */
export interface RepositoryRule {
  namespace: string;
  /** The only registry host its builds push to, and the platform's credentials are sent to. */
  host: string;
  /** Every repository it pushes starts with this (`ml/team-a/`; `` for the whole registry). */
  repositoryPrefix: string;
}

/** The namespace's own part of the repository path: `tenancy.repositoryPrefix` (or its grant's) with `{namespace}` filled. */
export function namespacePrefix(platform: BuildsConfig, namespace: string): string {
  const grant = platform.tenancy.namespaces[namespace];
  return (grant?.repositoryPrefix ?? platform.tenancy.repositoryPrefix).replaceAll("{namespace}", namespace);
}

/**
 * The rule for `namespace`'s builds: under the platform's registry URL, or under its own override's
 * URL when the platform grants it `registryOverride` (then its credentials are its own).
 */
export function repositoryRule(
  platform: BuildsConfig,
  effective: BuildsConfig,
  namespace: string,
): RepositoryRule {
  const grant = platform.tenancy.namespaces[namespace];
  const url = grant?.registryOverride ? effective.registry.url : platform.registry.url;
  return {
    namespace,
    host: registryHost(url),
    repositoryPrefix: `${registryPath(url)}${namespacePrefix(platform, namespace)}`,
  };
}

/** Why `image` is not one `rule`'s namespace may push, naming the field and the rule; undefined when it may. */
export function imageRefusal(image: ImageReference, rule: RepositoryRule): string | undefined {
  if (image.registry !== rule.host)
    return `naming.image: renders registry ${image.registry}, but builds of namespace ${rule.namespace} push only to ${rule.host} (registry.url: the platform's credentials are for that host only)`;
  if (!image.repository.startsWith(rule.repositoryPrefix) || image.repository === rule.repositoryPrefix)
    return `naming.image: renders repository ${image.repository}, but builds of namespace ${rule.namespace} push only under ${rule.host}/${rule.repositoryPrefix} (tenancy.repositoryPrefix)`;
  return undefined;
}

/** The host[:port] of an endpoint URL (`http://minio:9000` → `minio:9000`). */
export function endpointHost(endpoint: string): string {
  try {
    return new URL(endpoint).host;
  } catch {
    return endpoint.replace(/^[a-z]+:\/\//, "").replace(/\/.*$/, "");
  }
}

/** Hosts the platform allows beyond each build's registry: tenancy.allowedHosts and its own storage endpoints. */
export function allowedHosts(platform: BuildsConfig): string[] {
  const storage = platform.storage;
  const endpoints = [storage?.s3.endpoint, storage?.gcs.endpoint].filter((e) => e !== undefined);
  return [
    ...platform.tenancy.allowedHosts,
    ...endpoints.map(endpointHost),
    registryHost(platform.registry.url),
  ];
}

/** A field's value a namespace may not choose, and the rule it breaks. */
export interface Refusal {
  field: string;
  rule: string;
}

const defaultPorts: Record<string, string> = { "http:": "80", "https:": "443" };

/** True when `url`'s host is one of `allowed` (host[:port]; a URL's default port may be written or not). */
export function hostAllowed(url: URL, allowed: string[]): boolean {
  const explicit = `${url.hostname}:${url.port || defaultPorts[url.protocol] || ""}`;
  return allowed.includes(url.host) || allowed.includes(explicit);
}

/** Why an endpoint is refused: its host is not allowed; undefined when it is. */
export function endpointRefusal(field: string, endpoint: string, allowed: string[]): Refusal | undefined {
  const host = endpointHost(endpoint);
  let url: URL | undefined;
  try {
    url = new URL(endpoint);
  } catch {
    return { field, rule: `${endpoint} is not a URL` };
  }
  if (hostAllowed(url, allowed)) return undefined;
  return {
    field,
    rule: `host ${host} is not allowed (tenancy.allowedHosts: ${allowed.join(", ") || "none"})`,
  };
}

/**
 * Why a build's resources are refused in the shared build namespace: a request or limit above the
 * platform's `tenancy.maxResources`, naming the field; undefined when within.
 */
export function resourcesRefusal(
  resources: { requests: Record<string, string>; limits: Record<string, string> },
  max: Record<string, string>,
): string | undefined {
  for (const kind of ["requests", "limits"] as const) {
    for (const [resource, cap] of Object.entries(max)) {
      const asked = resources[kind][resource];
      if (asked === undefined) continue;
      const [value, limit] = [quantityValue(asked), quantityValue(cap)];
      if (value === undefined || limit === undefined || value > limit)
        return `spec.resources.${kind}.${resource}: ${asked} is more than the ${cap} builds in the shared build namespace may have (tenancy.maxResources.${resource})`;
    }
  }
  return undefined;
}

/**
 * Why a build in the shared build namespace cannot push: the registry takes credentials, mints no
 * per-build ones (registry.scopedCredentials) and the platform names no push Secret of the build's namespace (its own credentials Secret is never
 * mounted into a build pod there, where a Dockerfile could read it); undefined when it can.
 */
export function pushSecretRefusal(config: BuildsConfig, namespace: string): string | undefined {
  if (!config.buildNamespace || config.buildNamespace === namespace) return undefined;
  if (
    !config.registry.credentialsSecret ||
    config.registry.scopedCredentials ||
    config.tenancy.namespaces[namespace]?.pushSecret
  )
    return undefined;
  return `tenancy.namespaces.${namespace}.pushSecret: builds of namespace ${namespace} run in the shared namespace ${config.buildNamespace} and push with that namespace's own Secret there, and none is named (the platform's ${config.registry.credentialsSecret} is never mounted into a build pod)`;
}

/** Why `spec.dockerfile` is refused: a path that leaves the build context; undefined when it stays inside. */
export function dockerfileRefusal(dockerfile: string): string | undefined {
  const normalized = posix.normalize(dockerfile.replace(/^\/+/, ""));
  if (normalized === ".." || normalized.startsWith("../") || normalized === ".")
    return `spec.dockerfile ${dockerfile}: must be a file inside the build context`;
  return undefined;
}
