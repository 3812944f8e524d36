import bcrypt from "bcryptjs";
import { describe, expect, it } from "vitest";
import { credentialSecret, generateCredential } from "../../../src/platform/credentials.ts";
import { defaultCredentialTools } from "../../../src/platform/platform-resources.ts";
import { workflowEngineRbac } from "../../../src/platform/workflow-engine.ts";

const platform = {
  apiVersion: "platform.slipway.dev/v1alpha1",
  kind: "Platform",
  metadata: { name: "lab", namespace: "team", uid: "p-1" },
  spec: {},
} as never;
const fixed = { password: () => "p4ss", bcrypt: (password: string) => `hash(${password})` };
const decoded = (data: Record<string, string> | undefined, key: string) =>
  Buffer.from(data?.[key] ?? "", "base64").toString();

describe("credentials", () => {
  it("the registry's: a dockerconfigjson for its in-cluster address and the htpasswd line of the same password", () => {
    const secret = credentialSecret(
      platform,
      "registry",
      generateCredential("registry", "lab", "team", fixed),
    );
    expect(secret.type).toBe("kubernetes.io/dockerconfigjson");
    expect(secret.metadata).toMatchObject({ name: "lab-registry-credentials", namespace: "team" });
    expect(secret.metadata?.ownerReferences?.[0]).toMatchObject({ kind: "Platform", uid: "p-1" });
    expect(secret.metadata?.labels?.["app.kubernetes.io/part-of"]).toBe("slipway");
    const config = JSON.parse(decoded(secret.data, ".dockerconfigjson"));
    expect(config.auths["lab-registry.team.svc:5000"]).toEqual({
      username: "slipway",
      password: "p4ss",
      auth: Buffer.from("slipway:p4ss").toString("base64"),
    });
    expect(decoded(secret.data, "htpasswd")).toBe("slipway:hash(p4ss)\n");
  });

  it("the database's and the object store's carry the keys their consumers reference", () => {
    const database = credentialSecret(
      platform,
      "database",
      generateCredential("database", "lab", "team", fixed),
    );
    expect(Object.keys(database.data ?? {}).sort()).toEqual(["password", "username"]);
    const store = credentialSecret(
      platform,
      "objectStore",
      generateCredential("objectStore", "lab", "team", fixed),
    );
    expect(decoded(store.data, "AWS_SECRET_ACCESS_KEY")).toBe("p4ss");
    expect(store.metadata?.name).toBe("lab-object-store-credentials");
  });

  it("real tools: distinct 128-bit passwords, bcrypt hashes the registry can verify", () => {
    const a = defaultCredentialTools.password();
    expect(a).toMatch(/^[0-9a-f]{32}$/);
    expect(defaultCredentialTools.password()).not.toBe(a);
    const hash = defaultCredentialTools.bcrypt(a);
    expect(hash).toMatch(/^\$2[aby]\$10\$/);
    expect(bcrypt.compareSync(a, hash)).toBe(true);
    expect(bcrypt.compareSync(`${a}x`, hash)).toBe(false);
  });
});

describe("the workflow engine's RBAC", () => {
  it("Roles only (never cluster-wide), bound to the controller's and the pipelines' ServiceAccounts", () => {
    const objects = workflowEngineRbac("lab");
    expect(objects.map((o) => `${o.kind}/${o.metadata.name}`)).toEqual([
      "Role/lab-workflow-engine",
      "RoleBinding/lab-workflow-engine",
      "ServiceAccount/lab-pipelines",
      "Role/lab-pipelines",
      "RoleBinding/lab-pipelines",
    ]);
    const binding = objects[1] as unknown as { subjects: unknown[]; roleRef: unknown };
    expect(binding.subjects).toEqual([{ kind: "ServiceAccount", name: "lab-workflow-engine" }]);
    expect(binding.roleRef).toMatchObject({ kind: "Role", name: "lab-workflow-engine" });
  });
});
