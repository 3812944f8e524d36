import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parseBlobUri } from "../../../src/builds/blob-uri.ts";
import {
  buildJobName,
  defaultImageTemplate,
  imageReference,
  parseImageReference,
  registryPrefix,
  renderTemplate,
} from "../../../src/builds/naming.ts";

const values = {
  registry: "localhost:5000",
  prefix: "ml/",
  project: "fraud",
  name: "scorer",
  version: "v1.2",
  hash: "abc123",
};

describe("image naming", () => {
  it("renders the default template: the namespace's prefix, then a flat name", () => {
    expect(renderTemplate(defaultImageTemplate, values)).toBe("localhost:5000/ml/fraud-scorer:v1.2");
    expect(imageReference(defaultImageTemplate, values)).toEqual({
      registry: "localhost:5000",
      repository: "ml/fraud-scorer",
      tag: "v1.2",
    });
  });

  it("refuses an unknown placeholder, naming it", () => {
    expect(() => renderTemplate("{registry}/{team}:{version}", values)).toThrow(
      /unknown placeholder \{team\}/,
    );
  });

  it("defaults to Docker Hub and applies its one-namespace rule", () => {
    expect(parseImageReference("acme/model:1")).toEqual({
      registry: "docker.io",
      repository: "acme/model",
      tag: "1",
    });
    expect(parseImageReference("busybox:1")).toMatchObject({ repository: "library/busybox" });
    expect(parseImageReference("docker.io/acme/fraud-scorer:1")).toMatchObject({
      repository: "acme/fraud-scorer",
    });
  });

  it("names the Docker Hub rule when a template nests too deep", () => {
    expect(() =>
      imageReference("{registry}/{project}/{name}:{version}", { ...values, registry: "docker.io/acme" }),
    ).toThrow(/Docker Hub accepts one path segment under a namespace/);
    // Other registries accept nested paths.
    expect(
      imageReference("{registry}/{project}/{name}:{version}", {
        ...values,
        registry: "europe-docker.pkg.dev/p/r",
      }),
    ).toEqual({ registry: "europe-docker.pkg.dev", repository: "p/r/fraud/scorer", tag: "v1.2" });
  });

  it("validates the repository and the tag against the OCI grammar", () => {
    expect(() => parseImageReference("localhost:5000/Fraud:v1")).toThrow(/repository component "Fraud"/);
    expect(() => parseImageReference("localhost:5000/fraud:.v1")).toThrow(/tag "\.v1"/);
    expect(() => parseImageReference(`localhost:5000/fraud:${"a".repeat(129)}`)).toThrow(/tag/);
    expect(() => parseImageReference("localhost:5000/fraud")).toThrow(/no tag/);
    expect(() => parseImageReference("localhost:5000/a--b_c.d:1")).not.toThrow();
    expect(() => parseImageReference("localhost:5000/a..b:1")).toThrow(/repository component/);
  });

  it("strips the scheme of the registry URL", () => {
    expect(registryPrefix("http://localhost:5000/")).toBe("localhost:5000");
    expect(registryPrefix("docker.io/acme")).toBe("docker.io/acme");
  });
});

describe("build Job names", () => {
  const dns1123Label = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

  it("are DNS-1123 labels of at most 63 characters for any reference", () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 400 }), (reference) => {
        const name = buildJobName(reference);
        expect(name.length).toBeLessThanOrEqual(63);
        expect(name).toMatch(dns1123Label);
      }),
    );
  });

  it("keep long references that share a prefix apart", () => {
    const long = `registry.example.com/${"very-long-project-name-".repeat(5)}`;
    const a = buildJobName(`${long}model-a:v1`);
    const b = buildJobName(`${long}model-b:v1`);
    expect(a).not.toBe(b);
    expect(a.length).toBeGreaterThan(55);
    expect(a.length).toBeLessThanOrEqual(63);
    expect(buildJobName("localhost:5000/fraud-scorer:v1.2")).toMatch(
      /^build-fraud-scorer-v1-2-[0-9a-f]{10}$/,
    );
  });
});

describe("blob URIs", () => {
  it("parses s3 and gs URIs", () => {
    expect(parseBlobUri("s3://models/fraud/v1")).toEqual({ scheme: "s3", bucket: "models", key: "fraud/v1" });
    expect(parseBlobUri("gs://my.bucket/a/")).toEqual({ scheme: "gs", bucket: "my.bucket", key: "a/" });
  });

  it("refuses anything else, naming the rule", () => {
    expect(() => parseBlobUri("https://models/fraud")).toThrow(
      /must be s3:\/\/bucket\/key or gs:\/\/bucket\/key/,
    );
    expect(() => parseBlobUri("s3://models")).toThrow(/must be s3/);
    expect(() => parseBlobUri("s3://models/")).toThrow(/key .* is empty/);
    expect(() => parseBlobUri("s3://Models/x")).toThrow(/bucket "Models"/);
  });
});
