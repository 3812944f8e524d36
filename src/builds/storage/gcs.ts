import { mkdir } from "node:fs/promises";
import { dirname, join } from "node:path";
import { Storage } from "@google-cloud/storage";
import type { BlobUri } from "../blob-uri.ts";
import { type BlobStore, BlobStoreError, belongsTo, relativePath } from "./blob-store.ts";

export interface GcsOptions {
  /** A service-account key (the Secret's key.json); none means the ambient Google credentials. */
  serviceAccountKey?: Record<string, unknown>;
  /** An emulator such as fake-gcs-server: requests go there unauthenticated. */
  endpoint?: string;
}

export class GcsBlobStore implements BlobStore {
  readonly #storage: Storage;

  constructor(options: GcsOptions) {
    this.#storage = new Storage({
      ...(options.serviceAccountKey ? { credentials: options.serviceAccountKey } : {}),
      ...(options.endpoint ? { apiEndpoint: options.endpoint, projectId: "emulator" } : {}),
      retryOptions: { maxRetries: 2 },
    });
  }

  async #keys(uri: BlobUri, limit?: number): Promise<string[]> {
    const [files] = await this.#call(uri, () =>
      this.#storage
        .bucket(uri.bucket)
        .getFiles({ prefix: uri.key, ...(limit ? { maxResults: limit + 1, autoPaginate: false } : {}) }),
    );
    return (files ?? []).map((f) => f.name).filter((name) => belongsTo(uri, name));
  }

  async exists(uri: BlobUri): Promise<boolean> {
    return (await this.#keys(uri, 2)).length > 0;
  }

  async download(uri: BlobUri, dir: string): Promise<number> {
    const keys = await this.#keys(uri);
    for (const key of keys) {
      const target = join(dir, relativePath(uri, key));
      await mkdir(dirname(target), { recursive: true });
      await this.#call(uri, () =>
        this.#storage.bucket(uri.bucket).file(key).download({ destination: target }),
      );
    }
    return keys.length;
  }

  async upload(uri: BlobUri, body: Uint8Array | string): Promise<void> {
    await this.#call(uri, () =>
      this.#storage.bucket(uri.bucket).file(uri.key).save(Buffer.from(body), { resumable: false }),
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
