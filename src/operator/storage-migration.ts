/**
 * Storage migration, the kube-storage-version-migrator way: once the operator leads, every object of
 * a Slipway kind whose CRD still lists an older version in `status.storedVersions` is rewritten by a
 * no-op update (the API server encodes it at the storage version), page by page; then the CRD's
 * `status.storedVersions` is trimmed to the storage version, so that a later release may stop serving
 * the older one. Idempotent: a CRD whose storedVersions is the storage version alone is left alone.
 * It can trim only where it has listed every namespace: an operator that serves some namespaces
 * rewrites the objects there and leaves storedVersions as it is (logged).
 */
import type { Logger } from "pino";
import type { Kind } from "../apis/kind.ts";
import { crdName, resourceTypeOf } from "../apis/kind.ts";
import { olderVersionsOf, storageVersion } from "../apis/versions.ts";
import { crdType } from "../kube/core-types.ts";
import { resourcePath } from "../kube/keys.ts";
import { isConflict, isGone, isNotFound, type RestClient } from "../kube/rest.ts";
import type { Permission, ResourceType } from "../kube/types.ts";

/** A list page: bounded memory and request size whatever the number of objects. */
const defaultPageSize = 100;
/** A list whose continue token expired starts over this many times at most (each pass is idempotent). */
const maxRestarts = 3;

/** What to do with a CRD's storage, from its `status.storedVersions`. Pure. */
export function storagePlan(
  storedVersions: string[] | undefined,
  servesAll: boolean,
): "none" | "migrate" | "rewrite-only" {
  const older = (storedVersions ?? []).filter((version) => version !== storageVersion);
  if (older.length === 0) return "none";
  return servesAll ? "migrate" : "rewrite-only";
}

export interface KindMigration {
  crd: string;
  /** none: nothing stored at an older version; migrated: rewritten and trimmed; rewritten: rewritten, storedVersions kept. */
  outcome: "none" | "not-installed" | "migrated" | "rewritten";
  rewritten: number;
  storedVersions: string[];
}

export interface StorageMigrationOptions {
  rest: Pick<RestClient, "request">;
  kinds: Kind[];
  /** The namespaces the operator serves; undefined: all (then storedVersions is trimmed). */
  namespaces: string[] | undefined;
  log: Logger;
  pageSize?: number;
  signal?: AbortSignal;
}

interface ListPage {
  metadata?: { continue?: string };
  items?: { metadata?: { name?: string; namespace?: string } }[];
}

/** Rewrites every object of `type` in `namespace` (undefined: all); the number rewritten. */
async function rewriteAll(
  options: StorageMigrationOptions,
  type: ResourceType,
  namespace: string | undefined,
): Promise<number> {
  for (let attempt = 0; ; attempt++) {
    let rewritten = 0;
    let token: string | undefined;
    try {
      do {
        options.signal?.throwIfAborted();
        const page = await options.rest.request<ListPage>("GET", resourcePath(type, { namespace }), {
          query: { limit: options.pageSize ?? defaultPageSize, continue: token },
        });
        for (const item of page.items ?? []) {
          const target = { namespace: item.metadata?.namespace, name: item.metadata?.name };
          try {
            // the object as read, resourceVersion included: a no-op the API server stores re-encoded
            await options.rest.request("PUT", resourcePath(type, target), { body: item });
            rewritten++;
          } catch (error) {
            // deleted since (nothing to migrate) or written since (written at the storage version)
            if (!isNotFound(error) && !isConflict(error)) throw error;
          }
        }
        token = page.metadata?.continue || undefined;
      } while (token);
      return rewritten;
    } catch (error) {
      if (!isGone(error) || attempt >= maxRestarts) throw error;
      options.log.info(
        { resource: type.plural, namespace },
        "storage migration: list expired, starting over",
      );
    }
  }
}

/** Migrates one kind's storage; see the module's comment. */
export async function migrateKind(options: StorageMigrationOptions, kind: Kind): Promise<KindMigration> {
  const name = crdName(kind);
  const path = resourcePath(crdType, { name });
  let crd: { status?: { storedVersions?: string[] } };
  try {
    crd = await options.rest.request("GET", path);
  } catch (error) {
    if (isNotFound(error)) return { crd: name, outcome: "not-installed", rewritten: 0, storedVersions: [] };
    throw error;
  }
  const stored = crd.status?.storedVersions ?? [];
  const plan = storagePlan(stored, options.namespaces === undefined);
  if (plan === "none") return { crd: name, outcome: "none", rewritten: 0, storedVersions: stored };
  const type = resourceTypeOf(kind);
  let rewritten = 0;
  for (const namespace of options.namespaces ?? [undefined])
    rewritten += await rewriteAll(options, type, namespace);
  if (plan === "rewrite-only") return { crd: name, outcome: "rewritten", rewritten, storedVersions: stored };
  await options.rest.request("PATCH", resourcePath(crdType, { name, subresource: "status" }), {
    contentType: "application/merge-patch+json",
    body: { status: { storedVersions: [storageVersion] } },
  });
  return { crd: name, outcome: "migrated", rewritten, storedVersions: [storageVersion] };
}

/** The line that says what a kind's migration did; undefined when it had nothing to do. Pure. */
export function migrationLine(result: KindMigration): string | undefined {
  if (result.outcome === "migrated")
    return `storage migrated: ${result.crd}, ${result.rewritten} objects rewritten at ${storageVersion}, storedVersions trimmed`;
  if (result.outcome === "rewritten")
    return `storage migration: ${result.crd}, ${result.rewritten} objects of the served namespaces rewritten at ${storageVersion}; storedVersions kept (${result.storedVersions.join(", ")}): objects of other namespaces may still be stored at an older version (an operator of all namespaces, or \`slipway storage migrate\`, trims it)`;
  return undefined;
}

/** Said when no kind had anything to do. */
export const nothingToMigrate = `storage migration: every kind is stored at ${storageVersion} only, nothing to do`;

/** Migrates every kind, one after the other, logging one line per kind that had anything to do. */
export async function migrateStorage(options: StorageMigrationOptions): Promise<KindMigration[]> {
  const results: KindMigration[] = [];
  for (const kind of migratedKinds(options.kinds)) {
    const result = await migrateKind(options, kind);
    results.push(result);
    const line = migrationLine(result);
    if (line) options.log[result.outcome === "rewritten" ? "warn" : "info"](result, line);
  }
  if (results.every((result) => migrationLine(result) === undefined)) options.log.info(nothingToMigrate);
  return results;
}

/** The kinds served at an older version: those whose objects may be stored at one. */
export const migratedKinds = (kinds: Kind[]): Kind[] =>
  kinds.filter((kind) => olderVersionsOf(kind).length > 0);

/**
 * What serving the versions needs: set the CRDs' spec.conversion (crd-conversion.ts) and, for the
 * migration, list and update every kind (no-op updates) and patch the CRDs' storedVersions; the
 * CRDs by name, Slipway's own only.
 */
export function versionPermissions(all: Kind[]): Permission[] {
  const kinds = migratedKinds(all);
  const names = kinds.map(crdName);
  if (names.length === 0) return [];
  return [
    ...kinds.map((kind) => ({ type: resourceTypeOf(kind), verbs: ["list" as const, "update" as const] })),
    { type: crdType, verbs: ["get" as const, "patch" as const], resourceNames: names },
    { type: crdType, verbs: ["patch" as const], subresource: "status", resourceNames: names },
  ];
}
