/**
 * artifacts.maxObjects / maxBytes against the real MinIO: the operator fails an ImageBuild whose
 * artifact is over a limit before any Job, and the Job's fetch-artifact step (the same program the
 * pod runs, here as a process) refuses it with the exit code that fails the Job at once.
 */
import { execFile } from "node:child_process";
import { mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { artifactLimitExitCode } from "../../../src/builds/artifact-limits.ts";
import { parseBlobUri } from "../../../src/builds/blob-uri.ts";
import { fetcher } from "../../../src/builds/build-job.ts";
import { parseBuildsConfig } from "../../../src/builds/config.ts";
import { buildNamespace, buildsConfig, jobsIn, useBuildServers } from "../../support/builds/fixtures.ts";
import { createImageBuild, startBuildOperator, waitForPhase } from "../../support/builds/operator.ts";
import { compiledRelease } from "../../support/compiled-release.ts";
import { uploadContext } from "../../support/fakes/build-server-children.ts";

const smallLimits = { artifacts: { maxObjects: 3, maxBytes: "1Ki" } };
const fourFiles = { Dockerfile: "FROM scratch\nCOPY . /\n", a: "a", b: "b", c: "c" };
const twoKiB = { Dockerfile: "FROM scratch\nCOPY . /\n", weights: "w".repeat(2048) };

describe("artifact limits (count 3, size 1 KiB) on the real MinIO", () => {
  const servers = useBuildServers();

  it("an ImageBuild over either limit fails ArtifactTooLarge naming the limit and its field, with no Job", async () => {
    const namespace = await buildNamespace(servers);
    await startBuildOperator(namespace, buildsConfig(servers, smallLimits));
    const spec = (version: string, artifactUri: string) => ({
      project: "fraud",
      name: "scorer",
      version,
      artifactUri,
    });
    await createImageBuild(
      namespace,
      "many",
      spec("many", await uploadContext(servers, `${namespace}/many`, fourFiles)),
    );
    await createImageBuild(
      namespace,
      "large",
      spec("large", await uploadContext(servers, `${namespace}/large`, twoKiB)),
    );
    const many = await waitForPhase(namespace, "many", "Failed");
    expect(many.status?.conditions?.[0]?.reason).toBe("ArtifactTooLarge");
    expect(many.status?.message).toBe(
      `artifact s3://${servers.bucket}/${namespace}/many has more than 3 objects (the limit artifacts.maxObjects of the builds configuration)`,
    );
    const large = await waitForPhase(namespace, "large", "Failed");
    expect(large.status?.conditions?.[0]?.reason).toBe("ArtifactTooLarge");
    expect(large.status?.message).toContain("is larger than 1Ki (1024 bytes, the limit artifacts.maxBytes");
    expect(await jobsIn(namespace)).toEqual([]);
  });

  it("the Job's fetch-artifact step streams within the limits and exits 3 over them, writing nothing", async () => {
    const config = parseBuildsConfig(buildsConfig(servers, smallLimits));
    const storage = config.storage;
    if (!storage) throw new Error("the test configuration has a blob store");
    // the compiled tree, laid out as the image's /app: the Job runs the container's command there
    const release = await compiledRelease();
    const run = async (prefix: string, files: Record<string, string>) => {
      const uri = parseBlobUri(await uploadContext(servers, `fetch-${Date.now()}/${prefix}`, files));
      const container = fetcher(uri, storage, config.artifacts);
      const dir = await mkdtemp(join(tmpdir(), "slipway-fetch-"));
      const args = [...(container.command?.slice(1) ?? []), ...(container.args ?? []).slice(0, -1), dir];
      const env = {
        AWS_ACCESS_KEY_ID: servers.s3.accessKeyId,
        AWS_SECRET_ACCESS_KEY: servers.s3.secretAccessKey,
      };
      const result = await promisify(execFile)(process.execPath, args, { env, cwd: release }).then(
        () => ({ code: 0, stderr: "" }),
        (error: { code: number; stderr: string }) => ({ code: error.code, stderr: error.stderr }),
      );
      const written = (await readdir(dir)).sort();
      await rm(dir, { recursive: true, force: true });
      return { ...result, written };
    };
    expect(await run("three", { Dockerfile: "FROM scratch\n", a: "a", b: "b" })).toEqual({
      code: 0,
      stderr: "",
      written: ["Dockerfile", "a", "b"],
    });
    const many = await run("many", fourFiles);
    expect(many).toMatchObject({ code: artifactLimitExitCode, written: [] });
    expect(many.stderr).toContain("has more than 3 objects (the limit artifacts.maxObjects");
    const large = await run("large", twoKiB);
    expect(large).toMatchObject({ code: artifactLimitExitCode, written: [] });
    expect(large.stderr).toContain("the limit artifacts.maxBytes");
  }, 600_000);
});
