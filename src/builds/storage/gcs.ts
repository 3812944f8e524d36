import type { Readable } from "node:stream";
import type { File, GetFilesOptions, Storage } from "@google-cloud/storage";
import { onFirstUse } from "../../lib/on-first-use.ts";
import type { BlobUri } from "../blob-uri.ts";
import { type BlobObject, type BlobStore, BlobStoreError, belongsTo } from "./blob-store.ts";

export interface GcsOptions {
  /** A service-account key (the Secret's key.json); none means the ambient Google credentials. */
  serviceAccountKey?: Record<string, unknown>;
  /** An emulator such as fake-gcs-server: requests go there unauthenticated. */
  endpoint?: string;
}

/** Google's storage client (+30 MB resident), loaded by the first GCS call. */
const gcsLibrary = onFirstUse(() => import("@google-cloud/storage"));

export class GcsBlobStore implements BlobStore {
  readonly #options: GcsOptions;
  #made: Storage | undefined;

  constructor(options: GcsOptions) {
    this.#options = options;
  }

  async #storage(): Promise<Storage> {
    const { Storage } = await gcsLibrary();
    this.#made ??= new Storage({
      ...(this.#options.serviceAccountKey ? { credentials: this.#options.serviceAccountKey } : {}),
      ...(this.#options.endpoint ? { apiEndpoint: this.#options.endpoint, projectId: "emulator" } : {}),
      retryOptions: { maxRetries: 2 },
    });
    return this.#made;
  }

  async list(uri: BlobUri, limit: number): Promise<BlobObject[]> {
    const objects: BlobObject[] = [];
    let query: GetFilesOptions | undefined = {
      prefix: uri.key,
      maxResults: Math.min(1000, Math.max(limit, 2)),
      autoPaginate: false,
    };
    while (query && objects.length < limit) {
      const current: GetFilesOptions = query;
      const page = await this.#call(uri, async () =>
        (await this.#storage()).bucket(uri.bucket).getFiles(current),
      );
      const files: File[] = page[0] ?? [];
      const next = page[1] as GetFilesOptions | null | undefined;
      for (const file of files)
        if (belongsTo(uri, file.name))
          objects.push({ key: file.name, size: Number(file.metadata.size ?? 0) });
      query = next?.pageToken ? { ...current, pageToken: next.pageToken } : undefined;
    }
    return objects.slice(0, limit);
  }

  async read(uri: BlobUri, key: string): Promise<Readable> {
    // a missing object is an error of the stream (the listing just named it)
    return (await this.#storage()).bucket(uri.bucket).file(key).createReadStream();
  }

  async upload(uri: BlobUri, body: Uint8Array | string): Promise<void> {
    await this.#call(uri, async () =>
      (await this.#storage()).bucket(uri.bucket).file(uri.key).save(Buffer.from(body), { resumable: false }),
    );
  }

  async #call<T>(uri: BlobUri, call: () => Promise<T>): Promise<T | [undefined]> {
    try {
      return await call();
    } catch (error) {
      const code = (error as { code?: number }).code;
      if (code === 404) return [undefined];
      const where = `gs://${uri.bucket}/${uri.key}`;
      const message = error instanceof Error ? error.message : String(error);
      if (code === 401 || code === 403) throw new BlobStoreError("denied", `${where}: ${message}`);
      throw new BlobStoreError("unavailable", `${where}: ${message}`);
    }
  }
}
