/** Which version changes the CLI allows (pure). */
import { compareVersions, findRelease, releases } from "../../platform/catalog.ts";
import { UserError } from "../run.ts";

/** The catalog's spelling of `version`, or a UserError listing the known ones. */
export function knownVersion(version: string, flag = "--version"): string {
  const release = findRelease(version);
  if (!release) {
    const known = releases.map((r) => r.version).join(", ");
    throw new UserError(`${flag} ${version} is not a known Slipway release (known: ${known})`);
  }
  return release.version;
}

/** Refuses a downgrade unless forced; returns the target version. */
export function checkUpdate(current: string | undefined, target: string, force: boolean): string {
  const version = knownVersion(target);
  if (current && compareVersions(version, current) < 0 && !force) {
    throw new UserError(
      `--version ${version} is older than the running ${current}: a downgrade needs --force`,
    );
  }
  return version;
}
