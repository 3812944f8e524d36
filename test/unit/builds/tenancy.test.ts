import { describe, expect, it } from "vitest";
import { parseBuildsConfig } from "../../../src/builds/config.ts";
import { parseImageReference } from "../../../src/builds/naming.ts";
import {
  imageRefusal,
  namespacePrefix,
  pushSecretRefusal,
  repositoryRule,
  resourcesRefusal,
} from "../../../src/builds/tenancy.ts";
import { quantityValue } from "../../../src/lib/quantity.ts";

const platform = parseBuildsConfig({
  registry: { url: "registry.example.com/ml", credentialsSecret: "registry-creds" },
  tenancy: {
    namespaces: {
      risk: { repositoryPrefix: "risk-models/" },
      trusted: { repositoryPrefix: "" },
      own: { registryOverride: true },
    },
  },
});
const refusal = (image: string, namespace: string, effective = platform) =>
  imageRefusal(parseImageReference(image), repositoryRule(platform, effective, namespace));

describe("tenancy: where a namespace's builds may push", () => {
  it("one prefix per namespace by default, under the registry URL's path; a grant names another", () => {
    expect(namespacePrefix(platform, "team-a")).toBe("team-a/");
    expect(repositoryRule(platform, platform, "team-a")).toEqual({
      namespace: "team-a",
      host: "registry.example.com",
      repositoryPrefix: "ml/team-a/",
    });
    expect(repositoryRule(platform, platform, "risk").repositoryPrefix).toBe("ml/risk-models/");
    expect(repositoryRule(platform, platform, "trusted").repositoryPrefix).toBe("ml/");
  });

  it("refuses another host (the platform's credentials are for its host only), naming the field and the rule", () => {
    expect(refusal("127.0.0.1:5999/team-a/x:v1", "team-a")).toBe(
      "naming.image: renders registry 127.0.0.1:5999, but builds of namespace team-a push only to registry.example.com (registry.url: the platform's credentials are for that host only)",
    );
  });

  it("refuses another namespace's repositories and the bare prefix", () => {
    expect(refusal("registry.example.com/ml/team-b/x:v1", "team-a")).toBe(
      "naming.image: renders repository ml/team-b/x, but builds of namespace team-a push only under registry.example.com/ml/team-a/ (tenancy.repositoryPrefix)",
    );
    // "team" must not reach "team-a"'s repositories: prefixes end at a path boundary
    expect(refusal("registry.example.com/ml/team-a/x:v1", "team")).toMatch(
      /push only under registry.example.com\/ml\/team\//,
    );
    expect(refusal("registry.example.com/ml/team-a/x:v1", "team-a")).toBeUndefined();
    expect(refusal("registry.example.com/ml/anything:v1", "trusted")).toBeUndefined();
  });

  it("a namespace granted registryOverride pushes under its own override's registry", () => {
    const effective = parseBuildsConfig({ ...platform, registry: { url: "own.example.com" } });
    expect(refusal("own.example.com/own/x:v1", "own", effective)).toBeUndefined();
    expect(refusal("registry.example.com/ml/own/x:v1", "own", effective)).toMatch(
      /push only to own.example.com/,
    );
    // without the grant the override's host does not count
    expect(refusal("own.example.com/team-a/x:v1", "team-a", effective)).toMatch(
      /push only to registry.example.com/,
    );
  });

  it("a repository prefix must end at a path boundary", () => {
    expect(() => parseBuildsConfig({ ...platform, tenancy: { repositoryPrefix: "{namespace}-" } })).toThrow(
      /tenancy\.repositoryPrefix/,
    );
  });
});

describe("tenancy: the shared build namespace", () => {
  it("compares quantities by value: 1.5Gi is 1536Mi, 500m cores is half of 1", () => {
    expect(quantityValue("1.5Gi")).toBe(quantityValue("1536Mi"));
    expect(quantityValue("500m")).toBe(0.5);
    expect(quantityValue("1e3")).toBe(1000);
    expect(quantityValue("12 Gi")).toBeUndefined();
  });

  it("refuses a request or limit above the cap, naming the field and the cap", () => {
    const max = { memory: "16Gi", cpu: "4" };
    expect(resourcesRefusal({ requests: { cpu: "4" }, limits: { memory: "16384Mi" } }, max)).toBeUndefined();
    expect(resourcesRefusal({ requests: { cpu: "4500m" }, limits: {} }, max)).toBe(
      "spec.resources.requests.cpu: 4500m is more than the 4 builds in the shared build namespace may have (tenancy.maxResources.cpu)",
    );
    expect(resourcesRefusal({ requests: {}, limits: { memory: "17Gi" } }, max)).toMatch(
      /^spec.resources.limits.memory: 17Gi is more than the 16Gi/,
    );
  });

  it("a namespace building there pushes only with its own push Secret: none named is refused", () => {
    const shared = parseBuildsConfig({
      registry: { url: "registry.example.com/ml", credentialsSecret: "registry-creds" },
      buildNamespace: "ml-builds",
      tenancy: { namespaces: { risk: { pushSecret: "risk-push" } } },
    });
    expect(pushSecretRefusal(shared, "risk")).toBeUndefined();
    expect(pushSecretRefusal(shared, "fraud")).toMatch(
      /^tenancy.namespaces.fraud.pushSecret: builds of namespace fraud run in the shared namespace ml-builds/,
    );
    expect(pushSecretRefusal(platform, "fraud")).toBeUndefined();
  });
});
