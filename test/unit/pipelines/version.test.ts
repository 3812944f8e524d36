import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { versionOf } from "../../../src/pipelines/version.ts";

const namedValues = fc.uniqueArray(fc.record({ name: fc.string({ minLength: 1 }), value: fc.string() }), {
  minLength: 1,
  selector: (item) => item.name,
});

const spec = fc.record({
  provider: fc.string(),
  image: fc.string(),
  env: namedValues,
  beamArgs: namedValues,
  args: fc.array(fc.string()),
});

describe("versionOf", () => {
  it("does not change when name/value lists are reordered or keys come in another order", () => {
    fc.assert(
      fc.property(spec, fc.context(), (value, ctx) => {
        const shuffled = {
          args: value.args,
          beamArgs: [...value.beamArgs].reverse(),
          env: [...value.env.slice(1), value.env[0]],
          image: value.image,
          provider: value.provider,
        };
        ctx.log(JSON.stringify(shuffled));
        expect(versionOf(shuffled)).toBe(versionOf(value));
      }),
    );
  });

  it("changes when any value changes", () => {
    fc.assert(
      fc.property(spec, fc.nat(), fc.string(), (value, index, extra) => {
        const i = index % value.env.length;
        const env = value.env.map((e, j) => (j === i ? { ...e, value: `${e.value}${extra}x` } : e));
        expect(versionOf({ ...value, env })).not.toBe(versionOf(value));
      }),
    );
  });

  it("keeps the order of plain lists such as args", () => {
    expect(versionOf({ args: ["a", "b"] })).not.toBe(versionOf({ args: ["b", "a"] }));
  });

  it("is 12 lowercase hex digits", () => {
    expect(versionOf({ a: 1 })).toMatch(/^[0-9a-f]{12}$/);
  });
});
