import { describe, expect, it } from "vitest";
import { onFirstUse, onFirstUseSync } from "../../../src/lib/on-first-use.ts";
import { parseYaml, stringifyYaml } from "../../../src/lib/yaml.ts";

describe("a dependency loaded on first use", () => {
  it("loads nothing until called, then once however many callers wait at the same time", async () => {
    let loads = 0;
    const library = onFirstUse(async () => ({ n: ++loads }));
    expect(loads).toBe(0);
    const [a, b] = await Promise.all([library(), library()]);
    expect(await library()).toBe(a);
    expect(b).toBe(a);
    expect(loads).toBe(1);
  });

  it("tries a failed load again on the next call", async () => {
    let attempts = 0;
    const library = onFirstUse(async () => {
      attempts++;
      if (attempts === 1) throw new Error("not there yet");
      return "loaded";
    });
    await expect(library()).rejects.toThrow("not there yet");
    expect(await library()).toBe("loaded");
    expect(attempts).toBe(2);
  });

  it("for a synchronous caller, requires the package on the first call", () => {
    const yaml = onFirstUseSync<typeof import("yaml")>("yaml");
    expect(yaml().parse("a: [1, 2]")).toEqual({ a: [1, 2] });
    expect(yaml()).toBe(yaml());
    expect(parseYaml(stringifyYaml({ b: { c: "d" } }))).toEqual({ b: { c: "d" } });
  });
});
