/** Which version changes the CLI allows (pure). */
import type { PlatformResource } from "../../apis/platform/platform.ts";
import {
  checkUpdate,
  type ReleaseCatalog,
  releaseCatalog,
  requestedVersion,
} from "../../platform/version-change.ts";
import { UserError } from "../run.ts";

const unknownRelease = (flag: string, version: string, known: readonly string[]) =>
  new UserError(`${flag} ${version} is not a known Slipway release (known: ${known.join(", ")})`);

/** The catalog's spelling of `version`, or a UserError listing the known ones. */
export function knownVersion(version: string, flag = "--version"): string {
  const known = releaseCatalog.find(version);
  if (known === undefined) throw unknownRelease(flag, version, releaseCatalog.versions);
  return known;
}

/**
 * `slipway update --version target`: the version to write, by the rule the REST API follows
 * (checkUpdate); a UserError naming --version or --force when it refuses.
 */
export function updateVersion(
  platform: Pick<PlatformResource, "spec" | "status">,
  target: string,
  force: boolean,
  catalog?: ReleaseCatalog,
): string {
  const decision = checkUpdate(platform.status?.version, requestedVersion(platform), target, {
    force,
    ...(catalog ? { catalog } : {}),
  });
  if (decision.action === "update") return decision.to;
  if (decision.action === "unchanged") return decision.version;
  if (decision.reason === "unknown-version") throw unknownRelease("--version", target, decision.known);
  const which = decision.from === platform.status?.version ? "running" : "requested";
  throw new UserError(
    `--version ${decision.target} is older than the ${which} ${decision.from}: a downgrade needs --force`,
  );
}
