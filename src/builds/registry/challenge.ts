/** Pure parts of the Docker Registry HTTP API v2 client: challenges and response classes. */

export type Challenge =
  | { scheme: "basic"; realm?: string }
  | { scheme: "bearer"; realm: string; service?: string; scope?: string };

/** Parses `WWW-Authenticate: Bearer realm="…",service="…",scope="…"` (or Basic); undefined if unusable. */
export function parseChallenge(header: string | null | undefined): Challenge | undefined {
  if (!header) return undefined;
  const match = /^\s*(\w+)\s*(.*)$/s.exec(header);
  if (!match) return undefined;
  const scheme = (match[1] ?? "").toLowerCase();
  const params: Record<string, string> = {};
  for (const [, key, quoted, bare] of (match[2] ?? "").matchAll(/(\w+)\s*=\s*(?:"([^"]*)"|([^\s,]+))/g)) {
    if (key) params[key.toLowerCase()] = quoted ?? bare ?? "";
  }
  if (scheme === "basic") return { scheme: "basic", ...(params.realm ? { realm: params.realm } : {}) };
  if (scheme === "bearer" && params.realm) {
    return {
      scheme: "bearer",
      realm: params.realm,
      ...(params.service ? { service: params.service } : {}),
      ...(params.scope ? { scope: params.scope } : {}),
    };
  }
  return undefined;
}

export type ResponseClass = "ok" | "not-found" | "unauthorized" | "transient" | "unexpected";

export function classifyStatus(status: number): ResponseClass {
  if (status >= 200 && status < 300) return "ok";
  if (status === 404) return "not-found";
  if (status === 401 || status === 403) return "unauthorized";
  if (status === 408 || status === 429 || status >= 500) return "transient";
  return "unexpected";
}

export function statusClass(status: number | undefined): string {
  return status === undefined ? "error" : `${Math.floor(status / 100)}xx`;
}

/** Accept header of a manifest request: OCI index and manifest, Docker manifest list and v2 manifest. */
export const manifestAccept = [
  "application/vnd.oci.image.index.v1+json",
  "application/vnd.oci.image.manifest.v1+json",
  "application/vnd.docker.distribution.manifest.list.v2+json",
  "application/vnd.docker.distribution.manifest.v2+json",
].join(", ");
