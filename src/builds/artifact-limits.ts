/**
 * How much of the blob store one build may fetch (`artifacts.maxBytes`, `artifacts.maxObjects`):
 * the rule and its messages, pure. The operator's artifact check, the local backend's download and
 * the build Job's `fetch-artifact` step all refuse with these.
 */

import { quantityValue } from "../lib/quantity.ts";
import { type BlobUri, formatBlobUri } from "./blob-uri.ts";

export interface ArtifactLimits {
  maxBytes: number;
  maxObjects: number;
  /** As configured (e.g. `2Gi`), to name it in messages. */
  maxBytesText: string;
}

/** The exit code of `fetch-artifact` over a limit: the Job fails at once (podFailurePolicy), no retry. */
export const artifactLimitExitCode = 3;

export class ArtifactLimitError extends Error {
  override name = "ArtifactLimitError";
}

/** The limits of a validated configuration (parseBuildsConfig refuses a maxBytes under one byte). */
export function artifactLimits(config: { maxBytes: string; maxObjects: number }): ArtifactLimits {
  const maxBytes = Math.max(1, Math.floor(quantityValue(config.maxBytes) ?? 1));
  return { maxBytes, maxObjects: config.maxObjects, maxBytesText: config.maxBytes };
}

/** The refusal of an artifact with `count` objects (listing stops one past the limit); undefined within it. */
export function objectCountRefusal(uri: BlobUri, count: number, limits: ArtifactLimits): string | undefined {
  if (count <= limits.maxObjects) return undefined;
  return `artifact ${formatBlobUri(uri)} has more than ${limits.maxObjects} objects (the limit artifacts.maxObjects of the builds configuration)`;
}

/** The refusal of an artifact of `bytes` bytes (listed, or read so far); undefined within the limit. */
export function byteSizeRefusal(uri: BlobUri, bytes: number, limits: ArtifactLimits): string | undefined {
  if (bytes <= limits.maxBytes) return undefined;
  return `artifact ${formatBlobUri(uri)} is larger than ${limits.maxBytesText} (${limits.maxBytes} bytes, the limit artifacts.maxBytes of the builds configuration)`;
}
