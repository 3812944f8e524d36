import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CreateBucketCommand, S3Client } from "@aws-sdk/client-s3";
import { Storage } from "@google-cloud/storage";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ArtifactLimitError, artifactLimits } from "../../../src/builds/artifact-limits.ts";
import { parseBlobUri } from "../../../src/builds/blob-uri.ts";
import { artifactExists, type BlobStore } from "../../../src/builds/storage/blob-store.ts";
import { downloadArtifact } from "../../../src/builds/storage/download.ts";
import { GcsBlobStore } from "../../../src/builds/storage/gcs.ts";
import { S3BlobStore } from "../../../src/builds/storage/s3.ts";
import {
  type RunningGcs,
  type RunningS3,
  startFakeGcs,
  startMinio,
} from "../../support/fakes/build-server-children.ts";

const roomy = artifactLimits({ maxBytes: "2Gi", maxObjects: 10_000 });

/** Count 3, size 1 KiB: a fourth object, or 2 KiB in one object, is refused before anything is written. */
async function expectLimits(store: BlobStore, scheme: "s3" | "gs", dir: string) {
  const limits = artifactLimits({ maxBytes: "1Ki", maxObjects: 3 });
  const uri = (key: string) => parseBlobUri(`${scheme}://models/${key}`);
  for (const name of ["a", "b", "c"]) await store.upload(uri(`limits/three/${name}`), "x");
  expect(await downloadArtifact(store, uri("limits/three"), join(dir, "three"), limits)).toBe(3);
  await store.upload(uri("limits/four/a"), "x");
  for (const name of ["b", "c", "d"]) await store.upload(uri(`limits/four/${name}`), "x");
  await expect(downloadArtifact(store, uri("limits/four"), join(dir, "four"), limits)).rejects.toThrow(
    new ArtifactLimitError(
      `artifact ${scheme}://models/limits/four has more than 3 objects (the limit artifacts.maxObjects of the builds configuration)`,
    ),
  );
  await store.upload(uri("limits/large/weights"), "w".repeat(2048));
  await expect(downloadArtifact(store, uri("limits/large"), join(dir, "large"), limits)).rejects.toThrow(
    /is larger than 1Ki \(1024 bytes, the limit artifacts.maxBytes of the builds configuration\)/,
  );
  expect((await readdir(dir)).sort()).toEqual(["Dockerfile", "three", "weights"]);
}

async function exercise(store: BlobStore, scheme: "s3" | "gs") {
  const uri = (key: string) => parseBlobUri(`${scheme}://models/${key}`);
  await store.upload(uri("fraud/v1/Dockerfile"), "FROM scratch\n");
  await store.upload(uri("fraud/v1/weights/model.bin"), "weights");
  await store.upload(uri("fraud/v10/Dockerfile"), "FROM scratch\n");
  await store.upload(uri("bundle.tar.gz"), "tar");

  expect(await artifactExists(store, uri("fraud/v1"))).toBe(true);
  expect(await artifactExists(store, uri("fraud/v1/"))).toBe(true);
  expect(await artifactExists(store, uri("bundle.tar.gz"))).toBe(true);
  expect(await artifactExists(store, uri("fraud/v2"))).toBe(false);
  expect(await artifactExists(store, uri("fraud/v"))).toBe(false); // a prefix of a name is not a directory
  expect(await artifactExists(store, parseBlobUri(`${scheme}://no-such-bucket/x`))).toBe(false);

  const dir = await mkdtemp(join(tmpdir(), "slipway-blob-"));
  try {
    expect(await downloadArtifact(store, uri("fraud/v1"), dir, roomy)).toBe(2);
    expect((await readdir(dir, { recursive: true })).sort()).toEqual([
      "Dockerfile",
      "weights",
      "weights/model.bin",
    ]);
    expect(await readFile(join(dir, "weights/model.bin"), "utf8")).toBe("weights");
    await expectLimits(store, scheme, dir);
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
    await expect(artifactExists(wrong, parseBlobUri("s3://models/fraud/v1"))).rejects.toMatchObject({
      kind: "denied",
    });
  });

  it("GCS (fake-gcs-server via the endpoint override): the same behaviour", async () => {
    await new Storage({ apiEndpoint: gcs.endpoint, projectId: "emulator" }).createBucket("models");
    await exercise(new GcsBlobStore({ endpoint: gcs.endpoint }), "gs");
  });
});
