/** The one rule for naming the field a value breaks its schema at. */
import { Type } from "@sinclair/typebox";
import { describe, expect, it } from "vitest";
import { describeProblem, fieldPath, schemaProblem } from "../../../src/lib/schema-problem.ts";

describe("schemaProblem", () => {
  const schema = Type.Object({ steps: Type.Array(Type.Object({ name: Type.String({ minLength: 1 }) })) });

  it("array indices in brackets, under the root given", () => {
    expect(schemaProblem(schema, { steps: [{ name: "a" }, { name: "" }] }, "spec")).toEqual({
      field: "spec.steps[1].name",
      rule: "Expected string length greater or equal to 1",
    });
    expect(describeProblem(schemaProblem(schema, { steps: [{}] }) ?? { field: "", rule: "" })).toBe(
      "steps[0].name: Expected required property",
    );
  });

  it("the root itself, or (root) when there is none", () => {
    expect(fieldPath("", "spec")).toBe("spec");
    expect(fieldPath("")).toBe("(root)");
    expect(schemaProblem(schema, "x")?.field).toBe("(root)");
  });

  it("nothing when the value holds", () => {
    expect(schemaProblem(schema, { steps: [{ name: "a" }] })).toBeUndefined();
  });
});
