/**
 * The Kaniko Job's `registry-login` step (src/builds/registry-login.ts): the key in, a docker config
 * with the access token out. Google's token endpoint is not reachable here: the exchange of a real key
 * is google-auth-library's (the same source the operator's own Google registry checks use); these
 * tests check what the step does around it, and that a key it cannot use fails the step with a reason.
 */
import { mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { credentialsFromDockerConfig } from "../../../src/builds/registry/credentials.ts";
import { registryLogin } from "../../../src/builds/registry-login.ts";

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "registry-login-"));
});
afterEach(async () => {
  vi.restoreAllMocks();
  await rm(dir, { recursive: true, force: true });
});

describe("registry-login", () => {
  it("writes push's docker config: user oauth2accesstoken, the exchanged token, readable by its owner only", async () => {
    await writeFile(join(dir, "key.json"), '{"type":"service_account"}');
    const keys: string[] = [];
    const code = await registryLogin(
      ["--registry=europe-docker.pkg.dev", join(dir, "key.json"), join(dir, "config.json")],
      (key) => {
        keys.push(key);
        return async () => ({ username: "oauth2accesstoken", password: "ya29.token" });
      },
    );
    expect(code).toBe(0);
    expect(keys).toEqual(['{"type":"service_account"}']);
    const config = await readFile(join(dir, "config.json"), "utf8");
    expect(credentialsFromDockerConfig(config, "europe-docker.pkg.dev")).toEqual({
      username: "oauth2accesstoken",
      password: "ya29.token",
    });
    expect((await stat(join(dir, "config.json"))).mode & 0o777).toBe(0o600);
  });

  it("a key that is not a service-account key fails the step with the reason, and writes nothing", async () => {
    const stderr = vi.spyOn(process.stderr, "write").mockImplementation(() => true);
    await writeFile(join(dir, "key.json"), "not json");
    const code = await registryLogin(["--registry=r", join(dir, "key.json"), join(dir, "config.json")]);
    expect(code).toBe(1);
    expect(stderr).toHaveBeenCalledWith(
      "registry-login: registry credentials Secret: key.json is not a service-account key (invalid JSON)\n",
    );
    await expect(stat(join(dir, "config.json"))).rejects.toThrow(/ENOENT/);
  });

  it("names its usage when an argument is missing", async () => {
    const stderr = vi.spyOn(process.stderr, "write").mockImplementation(() => true);
    expect(await registryLogin([join(dir, "key.json")])).toBe(1);
    expect(stderr).toHaveBeenCalledWith(
      "registry-login: usage: registry-login --registry=<host> <key file> <docker config file>\n",
    );
  });
});
