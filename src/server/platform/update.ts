/** The outcome of asking to move a Platform to a version. */
export type UpdateDecision =
  | { action: "update"; from: string | undefined; to: string }
  | { action: "unchanged"; version: string }
  | { action: "refuse"; statusCode: 400 | 409; message: string };

export interface UpdateRequest {
  /** status.version: what runs now. */
  running: string | undefined;
  /** spec.version: what was last asked for. */
  desired: string | undefined;
  target: string;
  force: boolean;
  /** Every version the release catalog knows. */
  known: readonly string[];
  /** Negative when a < b, as the release catalog orders versions. */
  compare: (a: string, b: string) => number;
}

/**
 * Decides an update as `slipway update` does: an unknown version is refused (400), a version below
 * what runs or was asked for is a downgrade, refused (409) unless forced; asking for the version
 * already asked for changes nothing.
 */
export function decideUpdate(request: UpdateRequest): UpdateDecision {
  const { running, desired, target, force, known, compare } = request;
  if (!known.includes(target)) {
    return {
      action: "refuse",
      statusCode: 400,
      message: `unknown version ${target}: the release catalog has ${known.join(", ")}`,
    };
  }
  if (desired === target) return { action: "unchanged", version: target };
  const highest = [running, desired]
    .filter((version): version is string => version !== undefined && known.includes(version))
    .sort(compare)
    .at(-1);
  if (highest !== undefined && compare(target, highest) < 0 && !force) {
    return {
      action: "refuse",
      statusCode: 409,
      message: `${target} is a downgrade from ${highest}: refused unless forced (force: true)`,
    };
  }
  return { action: "update", from: running ?? desired, to: target };
}
