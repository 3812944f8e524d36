/**
 * Heavy dependencies loaded on first use, not at start: an operator holds at rest only what its
 * controllers have used so far (docs/runtime.md, "What a Node operator holds at rest").
 *
 *   const s3Sdk = onFirstUse(() => import("@aws-sdk/client-s3"));
 *   const { S3Client } = await s3Sdk();
 */
import { createRequire } from "node:module";

/** `load` runs once, on the first call; a failed load is tried again by the next call. */
export function onFirstUse<T>(load: () => Promise<T>): () => Promise<T> {
  let loading: Promise<T> | undefined;
  return () => {
    loading ??= load().catch((error: unknown) => {
      loading = undefined;
      throw error;
    });
    return loading;
  };
}

const requireFromProject = createRequire(import.meta.url);

/**
 * For a synchronous call site (a pure function that parses YAML, say): the package is required on
 * the first call (CommonJS, or ESM through Node's require(esm)) and kept. Type it with
 * `onFirstUseSync<typeof import("yaml")>("yaml")`.
 */
export function onFirstUseSync<T>(packageName: string): () => T {
  let loaded: T | undefined;
  return () => {
    loaded ??= requireFromProject(packageName) as T;
    return loaded;
  };
}
