/**
 * Image references and Job names: the configurable naming template, validation of the rendered
 * reference against the OCI distribution grammar (and Docker Hub's one-namespace rule), and
 * DNS-1123 Job names of at most 63 characters.
 */
import { withHashSuffix } from "../lib/canonical.ts";

export class NamingError extends Error {
  override name = "NamingError";
}

export interface ImageReference {
  /** Host (and port) of the registry, e.g. `localhost:5000`, `docker.io`. */
  registry: string;
  /** Repository path under the registry, e.g. `acme/fraud-model`. */
  repository: string;
  tag: string;
}

/** `{prefix}`: the namespace's repository prefix (tenancy.repositoryPrefix, default `<namespace>/`). */
export const defaultImageTemplate = "{registry}/{prefix}{project}-{name}:{version}";
const placeholders = ["registry", "prefix", "project", "name", "version", "hash"] as const;
export type TemplateValues = Record<(typeof placeholders)[number], string>;

const dockerHubHosts = new Set(["docker.io", "index.docker.io", "registry-1.docker.io"]);
const pathComponent = /^[a-z0-9]+(?:(?:\.|_|__|-+)[a-z0-9]+)*$/;
const tagPattern = /^[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$/;
const hostPattern =
  /^(?:[a-zA-Z0-9](?:[a-zA-Z0-9-]*[a-zA-Z0-9])?)(?:\.[a-zA-Z0-9](?:[a-zA-Z0-9-]*[a-zA-Z0-9])?)*(?::[0-9]+)?$/;

/** Fills `{registry}`, `{prefix}`, `{project}`, `{name}`, `{version}`, `{hash}`; any other `{...}` is an error. */
export function renderTemplate(template: string, values: TemplateValues): string {
  return template.replace(/\{([^{}]*)\}/g, (_, key: string) => {
    if (!(placeholders as readonly string[]).includes(key)) {
      throw new NamingError(
        `naming.image: unknown placeholder {${key}} in "${template}" (allowed: ${placeholders.map((p) => `{${p}}`).join(" ")})`,
      );
    }
    return values[key as keyof TemplateValues];
  });
}

/** Splits and validates `host[:port]/path:tag`; a first component without `.` or `:` (and not `localhost`) means Docker Hub. */
export function parseImageReference(reference: string): ImageReference {
  const at = reference.indexOf("@");
  if (at >= 0) throw new NamingError(`image "${reference}": a build destination has a tag, not a digest`);
  const colon = reference.lastIndexOf(":");
  const slash = reference.lastIndexOf("/");
  if (colon <= slash) throw new NamingError(`image "${reference}": no tag (expected name:tag)`);
  const tag = reference.slice(colon + 1);
  const name = reference.slice(0, colon);
  const parts = name.split("/");
  const first = parts[0] ?? "";
  const hasHost = parts.length > 1 && (first.includes(".") || first.includes(":") || first === "localhost");
  const registry = hasHost ? first : "docker.io";
  let repository = hasHost ? parts.slice(1).join("/") : name;
  if (!hostPattern.test(registry))
    throw new NamingError(`image "${reference}": "${registry}" is not a registry host`);
  if (!tagPattern.test(tag)) {
    throw new NamingError(`image "${reference}": tag "${tag}" must match [A-Za-z0-9_][A-Za-z0-9_.-]{0,127}`);
  }
  for (const component of repository.split("/")) {
    if (!pathComponent.test(component)) {
      throw new NamingError(
        `image "${reference}": repository component "${component}" must be lowercase letters and digits separated by ., _, __ or -`,
      );
    }
  }
  if (repository.length > 255)
    throw new NamingError(`image "${reference}": repository is longer than 255 characters`);
  if (dockerHubHosts.has(registry)) {
    if (!repository.includes("/")) repository = `library/${repository}`;
    if (repository.split("/").length > 2) {
      throw new NamingError(
        `image "${reference}": Docker Hub accepts one path segment under a namespace (namespace/name); use a flat naming.image template such as ${defaultImageTemplate}`,
      );
    }
  }
  return { registry, repository, tag };
}

export function formatImageReference(reference: ImageReference): string {
  return `${reference.registry}/${reference.repository}:${reference.tag}`;
}

/** The registry part of the template: the configured URL without its scheme or a trailing slash. */
export function registryPrefix(url: string): string {
  return url.replace(/^[a-z]+:\/\//, "").replace(/\/+$/, "");
}

/** The host (and port) of a configured registry URL. */
export function registryHost(url: string): string {
  return registryPrefix(url).split("/")[0] ?? "";
}

/** The repository path prefix of a configured registry URL (`registry.example.com/ml` → `ml/`; none → ``). */
export function registryPath(url: string): string {
  const path = registryPrefix(url).split("/").slice(1).join("/");
  return path ? `${path}/` : "";
}

/** Renders and validates the image reference of a build. */
export function imageReference(template: string, values: TemplateValues): ImageReference {
  return parseImageReference(renderTemplate(template, values));
}

/**
 * The Job building `reference`: `build-<readable part>-<hash>`, a DNS-1123 label of at most 63
 * characters (the Job controller copies the name into a pod label). The hash keeps references that
 * shorten to the same readable part apart. `sharedBy`: the namespace whose builds share the Job, when
 * it runs in a namespace shared by several (buildNamespace): another namespace's builds of the same
 * reference get a Job of their own.
 */
export function buildJobName(reference: string, sharedBy?: string): string {
  const readable = reference
    .replace(/^[^/]*\//, "") // the registry host says little and would eat the length budget
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "");
  return withHashSuffix(`build-${readable}`, sharedBy === undefined ? reference : `${sharedBy}/${reference}`);
}
