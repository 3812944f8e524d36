/**
 * An artifact written to disk within its limits: the listing (one object past the count limit) is
 * refused when it has too many objects or lists too many bytes, and every object is streamed to its
 * file through a byte counter, so an object that grew after the listing is cut off at the limit too.
 * Nothing is held in memory whole. Used by the local backend and the build Job's fetch-artifact step.
 */
import { createWriteStream } from "node:fs";
import { mkdir } from "node:fs/promises";
import { dirname, join } from "node:path";
import { Transform } from "node:stream";
import { pipeline } from "node:stream/promises";
import {
  ArtifactLimitError,
  type ArtifactLimits,
  byteSizeRefusal,
  objectCountRefusal,
} from "../artifact-limits.ts";
import type { BlobUri } from "../blob-uri.ts";
import { type BlobStore, relativePath } from "./blob-store.ts";

/** Counts the bytes passing through against the artifact's budget; over it, the stream fails. */
function byteBudget(uri: BlobUri, limits: ArtifactLimits, counted: { bytes: number }): Transform {
  return new Transform({
    transform(chunk: Buffer, _encoding, done) {
      counted.bytes += chunk.length;
      const refusal = byteSizeRefusal(uri, counted.bytes, limits);
      if (refusal) done(new ArtifactLimitError(refusal));
      else done(null, chunk);
    },
  });
}

/** Writes every object of `uri` into `dir` (by relative path); returns the count. Over a limit: ArtifactLimitError. */
export async function downloadArtifact(
  store: BlobStore,
  uri: BlobUri,
  dir: string,
  limits: ArtifactLimits,
): Promise<number> {
  const objects = await store.list(uri, limits.maxObjects + 1);
  const tooMany = objectCountRefusal(uri, objects.length, limits);
  if (tooMany) throw new ArtifactLimitError(tooMany);
  const listed = objects.reduce((sum, object) => sum + object.size, 0);
  const tooLarge = byteSizeRefusal(uri, listed, limits);
  if (tooLarge) throw new ArtifactLimitError(tooLarge);
  const counted = { bytes: 0 };
  for (const object of objects) {
    const target = join(dir, relativePath(uri, object.key));
    await mkdir(dirname(target), { recursive: true });
    await pipeline(
      await store.read(uri, object.key),
      byteBudget(uri, limits, counted),
      createWriteStream(target),
    );
  }
  return objects.length;
}
