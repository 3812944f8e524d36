import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CreateBucketCommand, S3Client } from "@aws-sdk/client-s3";
import { Storage } from "@google-cloud/storage";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseBlobUri } from "../../../src/builds/blob-uri.ts";
import type { BlobStore } from "../../../src/builds/storage/blob-store.ts";
import { GcsBlobStore } from "../../../src/builds/storage/gcs.ts";
import { S3BlobStore } from "../../../src/builds/storage/s3.ts";
import {
  type RunningGcs,
  type RunningS3,
  startFakeGcs,
  startMinio,
} from "../../../src/dev/build-server-children.ts";

async function exercise(store: BlobStore, scheme: "s3" | "gs") {
  const uri = (key: string) => parseBlobUri(`${scheme}://models/${key}`);
  await store.upload(uri("fraud/v1/Dockerfile"), "FROM scratch\n");
  await store.upload(uri("fraud/v1/weights/model.bin"), "weights");
  await store.upload(uri("fraud/v10/Dockerfile"), "FROM scratch\n");
  await store.upload(uri("bundle.tar.gz"), "tar");

  expect(await store.exists(uri("fraud/v1"))).toBe(true);
  expect(await store.exists(uri("fraud/v1/"))).toBe(true);
  expect(await store.exists(uri("bundle.tar.gz"))).toBe(true);
  expect(await store.exists(uri("fraud/v2"))).toBe(false);
  expect(await store.exists(uri("fraud/v"))).toBe(false); // a prefix of a name is not a directory
  expect(await store.exists(parseBlobUri(`${scheme}://no-such-bucket/x`))).toBe(false);

  const dir = await mkdtemp(join(tmpdir(), "slipway-blob-"));
  try {
    expect(await store.download(uri("fraud/v1"), dir)).toBe(2);
    expect((await readdir(dir, { recursive: true })).sort()).toEqual([
      "Dockerfile",
      "weights",
      "weights/model.bin",
    ]);
    expect(await readFile(join(dir, "weights/model.bin"), "utf8")).toBe("weights");
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

describe("blob stores against real servers", () => {
  let minio: RunningS3;
  let gcs: RunningGcs;
  beforeAll(async () => {
    [minio, gcs] = await Promise.all([startMinio(), startFakeGcs()]);
  });
  afterAll(async () => {
    await Promise.all([minio?.stop(), gcs?.stop()]);
  });

  it("S3 (MinIO, path style): exists for a prefix or an object, download, denial with bad keys", async () => {
    const options = { endpoint: minio.endpoint, region: "us-east-1", forcePathStyle: true };
    const credentials = { accessKeyId: minio.accessKeyId, secretAccessKey: minio.secretAccessKey };
    const admin = new S3Client({ ...options, credentials });
    await admin.send(new CreateBucketCommand({ Bucket: "models" }));
    admin.destroy();
    await exercise(new S3BlobStore({ ...options, credentials }), "s3");

    const wrong = new S3BlobStore({
      ...options,
      credentials: { ...credentials, secretAccessKey: "not-the-key" },
    });
    await expect(wrong.exists(parseBlobUri("s3://models/fraud/v1"))).rejects.toMatchObject({
      kind: "denied",
    });
  });

  it("GCS (fake-gcs-server via the endpoint override): the same behaviour", async () => {
    await new Storage({ apiEndpoint: gcs.endpoint, projectId: "emulator" }).createBucket("models");
    await exercise(new GcsBlobStore({ endpoint: gcs.endpoint }), "gs");
  });
});
