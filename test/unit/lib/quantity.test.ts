import { describe, expect, it } from "vitest";
import { quantitySuffixes, quantityValue } from "../../../src/lib/quantity.ts";
import { memoryGB } from "../../../src/pipelines/kfp/resources.ts";

describe("one quantity table, for Kubernetes quantities and the KFP SDK's memory units", () => {
  it("reads Kubernetes quantities in their base unit (the builds caps and limits)", () => {
    expect(["500m", "2", "2Gi", "1.5Gi", "1e3", "250u", "3k", "1E"].map(quantityValue)).toEqual([
      0.5,
      2,
      2 * 2 ** 30,
      1.5 * 2 ** 30,
      1000,
      250e-6,
      3000,
      1e18,
    ]);
    // KFP's K is not a Kubernetes suffix; spaces and unknown suffixes are no quantity
    expect(["1K", "12 Gi", "2GB", ""].map(quantityValue)).toEqual([
      undefined,
      undefined,
      undefined,
      undefined,
    ]);
  });

  it("gives memoryGB the SDK's factor for each of its units, computed as the SDK does ((n × unit) / 10^9)", () => {
    // kfp's constants (_E, _EI, …, _K, _KI): K is 10^3 there
    const sdk: Record<string, number> = {
      E: 10 ** 18,
      Ei: 2 ** 60,
      P: 10 ** 15,
      Pi: 2 ** 50,
      T: 10 ** 12,
      Ti: 2 ** 40,
      Gi: 2 ** 30,
      M: 10 ** 6,
      Mi: 2 ** 20,
      K: 10 ** 3,
      Ki: 2 ** 10,
    };
    for (const [unit, factor] of Object.entries(sdk))
      expect(memoryGB(`7${unit}`), unit).toBe((7 * factor) / 10 ** 9);
    expect([memoryGB("7G"), memoryGB("7"), memoryGB("7k")]).toEqual([7, 7 / 10 ** 9, 7 / 10 ** 9]);
    expect(quantitySuffixes.Ki).toBe(1024);
  });
});
