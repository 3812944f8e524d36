import { dumpYaml } from "@kubernetes/client-node";
import { Type } from "@sinclair/typebox";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { crdManifest, toCrd } from "../../../src/apis/crd.ts";
import { defineKind } from "../../../src/apis/kind.ts";
import { intOrString, preserveUnknownFields, validations } from "../../../src/apis/schema.ts";
import { SchemaError, type SchemaNode, structuralSchema } from "../../../src/apis/structural.ts";

/** Every node of a structural schema has a type, unless it is int-or-string or preserves unknown fields. */
function everyNodeTyped(node: SchemaNode, path = ""): string[] {
  const untyped =
    node.type === undefined &&
    node["x-kubernetes-int-or-string"] !== true &&
    node["x-kubernetes-preserve-unknown-fields"] !== true
      ? [path]
      : [];
  const children = [
    ...Object.entries((node.properties as Record<string, SchemaNode>) ?? {}).map(
      ([k, v]) => [`${path}.${k}`, v] as const,
    ),
    ...(node.items ? [[`${path}[]`, node.items as SchemaNode] as const] : []),
    ...(typeof node.additionalProperties === "object"
      ? [[`${path}[*]`, node.additionalProperties as SchemaNode] as const]
      : []),
  ];
  return [...untyped, ...children.flatMap(([p, child]) => everyNodeTyped(child, p))];
}

describe("structuralSchema", () => {
  it("keeps descriptions, defaults, patterns and drops additionalProperties: false", () => {
    const schema = structuralSchema(
      Type.Object(
        {
          name: Type.String({ description: "The name.", pattern: "^[a-z]+$", default: "a" }),
          count: Type.Optional(Type.Integer({ minimum: 1, description: "How many." })),
        },
        { additionalProperties: false, description: "Top." },
      ),
    );
    expect(schema).toEqual({
      type: "object",
      description: "Top.",
      properties: {
        name: { type: "string", description: "The name.", pattern: "^[a-z]+$", default: "a" },
        count: { type: "integer", minimum: 1, description: "How many." },
      },
      required: ["name"],
    });
  });

  it("turns a union of literals into an enum and T | null into nullable", () => {
    const schema = structuralSchema(
      Type.Object({
        mode: Type.Union([Type.Literal("fast"), Type.Literal("safe")], {
          default: "safe",
          description: "Mode.",
        }),
        note: Type.Union([Type.String({ description: "A note." }), Type.Null()]),
        fixed: Type.Literal(3),
        optionalMode: Type.Union([Type.Literal("a"), Type.Literal("b"), Type.Null()]),
      }),
    );
    expect(schema.properties).toEqual({
      mode: { type: "string", enum: ["fast", "safe"], default: "safe", description: "Mode." },
      note: { type: "string", description: "A note.", nullable: true },
      fixed: { type: "number", enum: [3] },
      optionalMode: { type: "string", enum: ["a", "b"], nullable: true },
    });
  });

  it("turns a string-keyed record into a map (additionalProperties schema)", () => {
    const schema = structuralSchema(Type.Record(Type.String(), Type.Integer()));
    expect(schema).toEqual({ type: "object", additionalProperties: { type: "integer" } });
  });

  it("fills the defaults of nested fields into an object's default, as the API server would at runtime", () => {
    const schema = structuralSchema(
      Type.Object({
        storage: Type.Object(
          {
            size: Type.String({ default: "1Gi" }),
            class: Type.Optional(Type.String()),
            backup: Type.Object({ keep: Type.Integer({ default: 3 }) }, { default: {} }),
          },
          { default: { class: "fast" } },
        ),
      }),
    );
    const storage = (schema.properties as Record<string, SchemaNode>).storage;
    expect(storage?.default).toEqual({ size: "1Gi", class: "fast", backup: { keep: 3 } });
  });

  it("turns JSON Schema 2019 exclusive bounds into OpenAPI v3 flags", () => {
    expect(structuralSchema(Type.Number({ exclusiveMinimum: 0, exclusiveMaximum: 1 }))).toEqual({
      type: "number",
      minimum: 0,
      exclusiveMinimum: true,
      maximum: 1,
      exclusiveMaximum: true,
    });
  });

  it("passes x-kubernetes-* extensions through, including CEL transition rules", () => {
    const rule = { rule: "self == oldSelf", message: "is immutable", fieldPath: ".name" };
    const schema = structuralSchema(
      Type.Object(
        { name: Type.String(), extra: preserveUnknownFields("Anything."), port: intOrString("A port.") },
        validations(rule),
      ),
    );
    expect(schema["x-kubernetes-validations"]).toEqual([rule]);
    const properties = schema.properties as Record<string, SchemaNode>;
    expect(properties.extra).toEqual({
      type: "object",
      description: "Anything.",
      "x-kubernetes-preserve-unknown-fields": true,
    });
    expect(properties.port).toEqual({
      description: "A port.",
      "x-kubernetes-int-or-string": true,
      anyOf: [{ type: "integer" }, { type: "string" }],
    });
    expect(everyNodeTyped(schema)).toEqual([]);
  });

  it.each([
    [
      "Type.Unknown",
      Type.Object({ a: Type.Object({ b: Type.Unknown() }) }),
      ".spec.a.b: every field needs a type",
    ],
    [
      "a union of objects",
      Type.Object({ a: Type.Union([Type.Object({ x: Type.String() }), Type.Object({ y: Type.String() })]) }),
      ".spec.a: a union (anyOf) is not structural",
    ],
    [
      "a union of literals of two types",
      Type.Object({ a: Type.Union([Type.Literal("x"), Type.Literal(1)]) }),
      ".spec.a: a union of literals must have one type, found string and integer",
    ],
    [
      "a tuple",
      Type.Object({ a: Type.Tuple([Type.String()]) }),
      ".spec.a: tuples (items as a list) are not allowed",
    ],
    [
      "a map with a key pattern",
      Type.Object({ a: Type.Record(Type.String({ pattern: "^x" }), Type.String()) }),
      ".spec.a: a map's keys cannot be restricted by patternProperties",
    ],
    ["a $ref", Type.Object({ a: Type.Unsafe({ $ref: "#/x" }) }), ".spec.a: $ref is not allowed"],
    ["an allOf", Type.Object({ a: Type.Unsafe({ allOf: [] }) }), ".spec.a: allOf is not allowed"],
    [
      "an unknown keyword",
      Type.Object({ a: Type.String({ contentEncoding: "base64" }) }),
      '.spec.a: keyword "contentEncoding" is not supported',
    ],
    ["a null type", Type.Object({ a: Type.Null() }), ".spec.a: type must be one of"],
  ])("refuses %s, naming the field and the rule", (_, schema, message) => {
    expect(() => structuralSchema(schema, ".spec")).toThrow(SchemaError);
    expect(() => structuralSchema(schema, ".spec")).toThrow(message);
  });
});

describe("toCrd", () => {
  const gadget = defineKind({
    group: "test.slipway.dev",
    version: "v1alpha1",
    kind: "Gadget",
    plural: "gadgets",
    singular: "gadget",
    shortNames: ["gd"],
    scope: "Namespaced",
    description: "A gadget.",
    spec: Type.Object({ size: Type.Integer({ description: "Size." }) }, { additionalProperties: false }),
    status: Type.Object({ phase: Type.Optional(Type.String()) }),
    printerColumns: [{ name: "Size", type: "integer", jsonPath: ".spec.size" }],
  });

  it("has a structural root with spec and status, a status subresource and the slipway category", () => {
    const crd = toCrd(gadget);
    const version = crd.spec.versions[0];
    const root = version?.schema?.openAPIV3Schema as unknown as SchemaNode;
    expect(everyNodeTyped(root)).toEqual([]);
    expect(JSON.stringify(root)).not.toContain("additionalProperties");
    expect(version?.subresources).toEqual({ status: {} });
    expect(crd.spec.names.categories).toEqual(["slipway"]);
    expect(version?.additionalPrinterColumns?.map((c) => c.name)).toEqual(["Size", "Age"]);
  });

  it("survives @kubernetes/client-node's model serialization with defaults, enums and CEL rules intact", () => {
    const kind = {
      ...gadget,
      printerColumns: [{ name: "Mode", type: "string" as const, jsonPath: ".spec.mode" }],
      spec: Type.Object(
        { mode: Type.Union([Type.Literal("a"), Type.Literal("b")], { default: "a" }) },
        validations({ rule: "self.mode != 'b'", message: "no b", fieldPath: ".mode" }),
      ),
    };
    expect(parse(dumpYaml(toCrd(kind)))).toEqual(crdManifest(kind));
  });

  it("refuses bad names with the field named", () => {
    expect(() => toCrd({ ...gadget, plural: "Gadgets" })).toThrow(
      'kind Gadget: plural "Gadgets" must be a lowercase DNS label',
    );
    expect(() => toCrd({ ...gadget, shortNames: ["g_d"] })).toThrow("shortNames");
    expect(() => toCrd({ ...gadget, version: "1" })).toThrow("version");
    expect(() => toCrd({ ...gadget, shortNames: [] })).toThrow(
      "kind Gadget: shortNames must have at least one name",
    );
    expect(() => toCrd({ ...gadget, printerColumns: [] })).toThrow(
      "kind Gadget: printerColumns must have at least one column",
    );
    expect(() =>
      toCrd({ ...gadget, printerColumns: [{ name: "Phase", type: "string", jsonPath: ".status.phaze" }] }),
    ).toThrow("kind Gadget: printer column Phase: .status.phaze is not a field of the schema");
  });
});
