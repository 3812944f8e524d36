/** Per-build registry credentials: minted by the operator, checked by the registry's token issuer (pure). */
import { describe, expect, it } from "vitest";
import {
  buildCredentialGrant,
  buildCredentialSecret,
  credentialMarginSeconds,
  repositoryIn,
} from "../../../src/builds/build-credential.ts";
import { parseBuildsConfig } from "../../../src/builds/config.ts";
import { parseImageReference } from "../../../src/builds/naming.ts";
import {
  buildCredentialPassword,
  mintBuildCredential,
  parseBuildCredentialUser,
  verifyBuildCredential,
} from "../../../src/builds/registry/build-credentials.ts";
import { sampleBuild } from "../../support/builds/samples.ts";

const key = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";
const grant = { repository: "team-a/fraud-scorer", pull: ["team-a/base"], expiresAt: 2_000_000_000 };

describe("a per-build credential", () => {
  it("names what it grants and until when; its password is the name's HMAC under the key", () => {
    const credentials = mintBuildCredential(key, grant);
    expect(credentials.username).toBe("build/2000000000/team-a/fraud-scorer+team-a/base");
    expect(credentials.password).toBe(buildCredentialPassword(key, credentials.username));
    expect(credentials.password).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(parseBuildCredentialUser(credentials.username)).toEqual(grant);
    expect(mintBuildCredential(`${key}x`, grant).password).not.toBe(credentials.password);
  });

  it("is accepted before its expiry and refused from it on", () => {
    const credentials = mintBuildCredential(key, grant);
    expect(verifyBuildCredential(key, credentials, grant.expiresAt - 1)).toEqual({ grant });
    expect(verifyBuildCredential(key, credentials, grant.expiresAt)).toEqual({
      refused: "expired at 2000000000",
    });
  });

  it("is refused under another key, with another password, or with a name changed to grant more", () => {
    const credentials = mintBuildCredential(key, grant);
    const now = grant.expiresAt - 100;
    const refused = { refused: "the password is not the user name's HMAC" };
    expect(verifyBuildCredential(`${key}x`, credentials, now)).toEqual(refused);
    expect(verifyBuildCredential(key, { ...credentials, password: `${credentials.password}x` }, now)).toEqual(
      refused,
    );
    expect(verifyBuildCredential(key, { ...credentials, password: "" }, now)).toEqual(refused);
    for (const username of [
      "build/2000000000/team-b/other",
      "build/2100000000/team-a/fraud-scorer+team-a/base",
      "build/2000000000/team-a/fraud-scorer+team-a/base+team-b/secret",
    ])
      expect(verifyBuildCredential(key, { username, password: credentials.password }, now)).toEqual(refused);
  });

  it("a name that is not a per-build one is refused even with its HMAC", () => {
    for (const username of ["slipway", "build/soon/team-a/x", "build/1/Team-A/x", "build/1/a//b", "build/1/"])
      expect(
        verifyBuildCredential(key, { username, password: buildCredentialPassword(key, username) }, 0),
      ).toEqual({ refused: "not a per-build user name" });
  });

  it("cannot be minted for a name outside the repository grammar (a `+` would change what it grants)", () => {
    expect(() => mintBuildCredential(key, { ...grant, repository: "a+b" })).toThrow(/not a repository name/);
  });
});

describe("the credential of a build's Job", () => {
  const config = parseBuildsConfig({
    registry: {
      url: "registry.example.com/ml",
      scopedCredentials: { secret: "registry-creds", key: "build-credentials-key" },
    },
    storage: { type: "s3", s3: {} },
  });
  const input = (baseImage?: string) => ({
    build: sampleBuild({ timeout: "45m", ...(baseImage ? { baseImage } : {}) }),
    image: parseImageReference("registry.example.com/ml/ml/fraud-scorer:v1"),
    artifact: { scheme: "s3" as const, bucket: "models", key: "fraud/scorer/v1" },
    config,
    namespace: "ml",
  });

  it("grants its image's repository until its timeout and a margin; pull on its base only when the base is in the same registry", () => {
    expect(buildCredentialGrant(input(), 1000)).toEqual({
      repository: "ml/ml/fraud-scorer",
      pull: [],
      expiresAt: 1000 + 2700 + credentialMarginSeconds,
    });
    expect(buildCredentialGrant(input("registry.example.com/ml/base:1"), 0).pull).toEqual(["ml/base"]);
    expect(buildCredentialGrant(input("registry.example.com/ml/base@sha256:abc"), 0).pull).toEqual([
      "ml/base",
    ]);
    expect(buildCredentialGrant(input("python:3.12-slim"), 0).pull).toEqual([]);
    expect(buildCredentialGrant(input("other.example.com/ml/base:1"), 0).pull).toEqual([]);
  });

  it("reads a base image's repository whatever its form", () => {
    expect(repositoryIn("localhost:5000/a/b", "localhost:5000")).toBe("a/b");
    expect(repositoryIn("localhost:5000/a/b:1@sha256:00", "localhost:5000")).toBe("a/b");
    expect(repositoryIn("python", "docker.io")).toBe("library/python");
    expect(repositoryIn("localhost:5000/NOT VALID", "localhost:5000")).toBeUndefined();
  });

  it("is a dockerconfigjson for the registry next to the Job, owned by it once it has a uid", () => {
    const job = { metadata: { name: "build-x", namespace: "ml", labels: { a: "b" } } };
    const secret = buildCredentialSecret(
      job,
      "registry.example.com",
      { username: "build/1/x", password: "p" },
      "uid-9",
    );
    expect(secret.metadata).toMatchObject({
      name: "build-x-registry",
      namespace: "ml",
      labels: { a: "b" },
      ownerReferences: [{ kind: "Job", name: "build-x", uid: "uid-9", controller: true }],
    });
    expect(secret.type).toBe("kubernetes.io/dockerconfigjson");
    const config = JSON.parse(Buffer.from(secret.data?.[".dockerconfigjson"] ?? "", "base64").toString());
    expect(config.auths["registry.example.com"].auth).toBe(Buffer.from("build/1/x:p").toString("base64"));
    expect(
      buildCredentialSecret(job, "r", { username: "u", password: "p" }).metadata?.ownerReferences,
    ).toBeUndefined();
  });

  it("scoped credentials are a docker registry's: refused with a Google one, naming the field", () => {
    expect(() =>
      parseBuildsConfig({
        registry: {
          type: "google",
          url: "europe-docker.pkg.dev/p/r",
          scopedCredentials: { secret: "s", key: "k" },
        },
      }),
    ).toThrow(/registry\.scopedCredentials: only for registry\.type docker/);
    expect(() => parseBuildsConfig({ registry: { url: "r", scopedCredentials: { secret: "s" } } })).toThrow(
      /registry\.scopedCredentials/,
    );
  });
});
