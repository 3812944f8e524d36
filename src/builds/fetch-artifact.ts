/**
 * The build Job's `fetch-artifact` step, run in Slipway's image: every object under an artifact URI
 * streamed into the workspace within the limits the operator passes as arguments
 * (`--max-bytes=2Gi --max-objects=10000 --storage=<storage configuration as JSON> <uri> <dir>`).
 * Credentials come from the environment (S3's keys, GOOGLE_APPLICATION_CREDENTIALS), never arguments.
 * Exit 0; over a limit artifactLimitExitCode; any other failure 1 — the message on stderr, which the
 * container's FallbackToLogsOnError makes the termination message.
 */
import { parseArgs } from "node:util";
import { Value } from "@sinclair/typebox/value";
import { describeProblem, schemaProblem } from "../lib/schema-problem.ts";
import { ArtifactLimitError, artifactLimitExitCode, artifactLimits } from "./artifact-limits.ts";
import { parseBlobUri } from "./blob-uri.ts";
import { StorageConfig } from "./config.ts";
import type { BlobStore } from "./storage/blob-store.ts";
import { downloadArtifact } from "./storage/download.ts";
import { GcsBlobStore } from "./storage/gcs.ts";
import { S3BlobStore } from "./storage/s3.ts";

/** The store the storage configuration names, with the ambient credentials of the environment. */
function storeOf(storage: StorageConfig): BlobStore {
  if (storage.type === "s3") {
    const { endpoint, region, forcePathStyle } = storage.s3;
    return new S3BlobStore({ region, forcePathStyle, ...(endpoint ? { endpoint } : {}) });
  }
  return new GcsBlobStore(storage.gcs.endpoint ? { endpoint: storage.gcs.endpoint } : {});
}

function parseStorage(text: string): StorageConfig {
  const storage = Value.Default(StorageConfig, JSON.parse(text));
  const problem = schemaProblem(StorageConfig, storage, "--storage");
  if (problem) throw new Error(describeProblem(problem));
  return storage as StorageConfig;
}

/** One fetch as the arguments describe it; returns the process's exit code. */
export async function fetchArtifact(argv: string[]): Promise<number> {
  try {
    const { values, positionals } = parseArgs({
      args: argv,
      options: {
        "max-bytes": { type: "string" },
        "max-objects": { type: "string" },
        storage: { type: "string" },
      },
      allowPositionals: true,
    });
    const [uri, dir] = positionals;
    if (!uri || !dir || !values.storage || !values["max-bytes"] || !values["max-objects"])
      throw new Error("usage: fetch-artifact --max-bytes=Q --max-objects=N --storage=JSON <uri> <dir>");
    const maxObjects = Number(values["max-objects"]);
    if (!Number.isInteger(maxObjects) || maxObjects < 1)
      throw new Error(`--max-objects ${values["max-objects"]}: must be an integer of at least 1`);
    const limits = artifactLimits({ maxBytes: values["max-bytes"], maxObjects });
    const artifact = parseBlobUri(uri);
    const count = await downloadArtifact(storeOf(parseStorage(values.storage)), artifact, dir, limits);
    if (count === 0) throw new Error(`no objects under ${uri}`);
    process.stdout.write(`fetched ${count} objects from ${uri}\n`);
    return 0;
  } catch (error) {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    return error instanceof ArtifactLimitError ? artifactLimitExitCode : 1;
  }
}

if (import.meta.main) process.exitCode = await fetchArtifact(process.argv.slice(2));
