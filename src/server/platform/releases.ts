import { compareVersions, findRelease, releases } from "../../platform/catalog.ts";

/** The versions the server may offer, from the release catalog. */
export interface ReleaseCatalog {
  versions: readonly string[];
  /** The catalog's spelling of a version ("v0.1.0" → "0.1.0"), or undefined when unknown. */
  find: (version: string) => string | undefined;
  /** Negative when a < b. */
  compare: (a: string, b: string) => number;
}

/** The release catalog this build of Slipway ships (src/platform/catalog.ts). */
export const releaseCatalog: ReleaseCatalog = {
  versions: releases.map((release) => release.version),
  find: (version) => findRelease(version)?.version,
  compare: compareVersions,
};
