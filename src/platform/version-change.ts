/** Whether a Platform may move to a version: the one rule `slipway update` and the REST API share (pure). */
import { gateNameProblem } from "../apis/platform/schemas.ts";
import { compareVersions, findRelease, type ReleaseGate, releases } from "./catalog.ts";

/** The versions a Platform may run, from a release catalog. */
export interface ReleaseCatalog {
  versions: readonly string[];
  /** The catalog's spelling of a version ("v0.1.0" → "0.1.0"), or undefined when unknown. */
  find: (version: string) => string | undefined;
  /** Negative when a < b. */
  compare: (a: string, b: string) => number;
  /** The gates an update to a (known) version waits for; none when the catalog declares none. */
  gates?: (version: string) => readonly ReleaseGate[];
}

/** The release catalog this build of Slipway ships (catalog.ts). */
export const releaseCatalog: ReleaseCatalog = {
  versions: releases.map((release) => release.version),
  find: (version) => findRelease(version)?.version,
  compare: compareVersions,
  gates: (version) => findRelease(version)?.gates ?? [],
};

/**
 * The version a Platform's spec asks for that still counts as asked for: not one whose update was
 * rolled back (status.rollback names it), which nothing is moving to any more.
 */
export function requestedVersion(platform: {
  spec: { version?: string };
  status?: { rollback?: { from: string } };
}): string | undefined {
  const requested = platform.spec.version;
  return requested !== undefined && platform.status?.rollback?.from === requested ? undefined : requested;
}

/** The outcome of asking to move a Platform to a version. */
export type UpdateDecision =
  | { action: "update"; from: string | undefined; to: string }
  | { action: "unchanged"; version: string }
  | { action: "refuse"; reason: "unknown-version"; target: string; known: readonly string[] }
  | { action: "refuse"; reason: "downgrade"; target: string; from: string };

export interface UpdateOptions {
  /** Allow a downgrade. */
  force: boolean;
  catalog?: ReleaseCatalog;
}

/**
 * Decides an update: an unknown version is refused; a version below the higher of what runs
 * (status.version) and what was last asked for (spec.version, e.g. mid-update) is a downgrade, refused
 * unless forced; asking for the version already asked for changes nothing.
 */
export function checkUpdate(
  running: string | undefined,
  requested: string | undefined,
  target: string,
  options: UpdateOptions,
): UpdateDecision {
  const catalog = options.catalog ?? releaseCatalog;
  const version = catalog.find(target);
  if (version === undefined) {
    return { action: "refuse", reason: "unknown-version", target, known: catalog.versions };
  }
  if (requested !== undefined && catalog.find(requested) === version) return { action: "unchanged", version };
  const highest = [running, requested]
    .flatMap((known) => (known === undefined ? [] : (catalog.find(known) ?? [])))
    .sort(catalog.compare)
    .at(-1);
  if (highest !== undefined && catalog.compare(version, highest) < 0 && !options.force) {
    return { action: "refuse", reason: "downgrade", target: version, from: highest };
  }
  return { action: "update", from: running ?? requested, to: version };
}

/**
 * The Platform's spec.acknowledgedGates after acknowledging `names` for an update to `version` (the
 * ones it has, then the new ones), or why not: a name that is no gate name, or no gate of that
 * release. `field` names the input in the problem (`--acknowledge`, `body.acknowledge`).
 */
export function acknowledgeGates(
  version: string,
  names: readonly string[],
  acknowledged: readonly string[] | undefined,
  field: string,
  catalog: ReleaseCatalog = releaseCatalog,
): { acknowledged: string[] } | { problem: string } {
  const gates = catalog.gates?.(version) ?? [];
  for (const name of names) {
    const problem = gateNameProblem(field, name);
    if (problem) return { problem };
    if (!gates.some((gate) => gate.name === name)) {
      const declared = gates.length ? gates.map((gate) => gate.name).join(", ") : "none";
      return {
        problem: `${field} ${name}: release ${version} declares no such gate (its gates: ${declared})`,
      };
    }
  }
  return { acknowledged: [...new Set([...(acknowledged ?? []), ...names])] };
}
