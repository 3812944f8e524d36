import { tmpdir } from "node:os";
import { describe, expect, it, vi } from "vitest";
import { budArgs, buildahEnvironment, LocalBuilder } from "../../../src/builds/local-builder.ts";
import { dockerfileRefusal } from "../../../src/builds/tenancy.ts";

const request = {
  reference: "127.0.0.1:5000/ml/fraud-scorer:v1",
  dockerfile: "Dockerfile",
  buildArgs: [
    { name: "PATH", value: "/tmp/evil", secret: false },
    { name: "PIP_TOKEN", value: "s3cr3t", secret: true },
  ],
};

describe("the local backend's buildah", () => {
  it("gets the build arguments as --build-arg NAME=VALUE, RUN without network (OCI isolation)", () => {
    const args = budArgs(request, "/work/ctx");
    expect(args).toEqual([
      "bud",
      "--isolation",
      "oci",
      "--network",
      "none",
      "--quiet",
      "-f",
      "/work/ctx/Dockerfile",
      "-t",
      request.reference,
      "--build-arg",
      "PATH=/tmp/evil",
      "--build-arg",
      "PIP_TOKEN=s3cr3t",
      "/work/ctx",
    ]);
  });

  it("runs with a fixed environment: nothing of the build's, of the operator's only home and runtime directory", () => {
    const env = buildahEnvironment({
      PATH: "/tmp/evil",
      LD_PRELOAD: "/tmp/x.so",
      HOME: "/home/op",
      HTTPS_PROXY: "x",
    });
    expect(env.PATH).toBe("/usr/sbin:/usr/bin:/sbin:/bin");
    expect(env.HOME).toBe("/home/op");
    expect(Object.keys(env).sort()).toEqual(["HOME", "LANG", "PATH", "TMPDIR"]);
  });

  it("refuses a Dockerfile path that leaves the build context", () => {
    expect(() => budArgs({ ...request, dockerfile: "../../etc/passwd" }, "/work/ctx")).toThrow(
      "spec.dockerfile ../../etc/passwd: must be a path inside the build context",
    );
    expect(dockerfileRefusal("sub/../../x")).toBe(
      "spec.dockerfile sub/../../x: must be a file inside the build context",
    );
    expect(dockerfileRefusal("/Dockerfile")).toBeUndefined();
    expect(dockerfileRefusal("docker/Dockerfile.gpu")).toBeUndefined();
  });
});

describe("the local backend's memory of runs", () => {
  it("keeps at most its number of finished runs, forgetting the oldest first", async () => {
    const builder = new LocalBuilder(tmpdir(), 2);
    for (const key of ["a", "b", "c"]) builder.start(key, () => Promise.reject(new Error(`no ${key}`)));
    await vi.waitFor(() => expect(builder.running()).toBe(0));
    expect(builder.observe("a")).toEqual({ state: "absent" });
    expect(builder.observe("b")).toMatchObject({ state: "failed", message: "no b" });
    expect(builder.observe("c")).toMatchObject({ state: "failed", message: "no c" });
  });
});
