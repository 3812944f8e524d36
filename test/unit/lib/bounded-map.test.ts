import { describe, expect, it } from "vitest";
import { BoundedMap, setNewest } from "../../../src/lib/bounded-map.ts";

describe("setNewest", () => {
  it("keeps at most `limit` entries, forgetting the least recently set", () => {
    const map = new Map<string, number>();
    setNewest(map, "a", 1, 2);
    setNewest(map, "b", 2, 2);
    expect(setNewest(map, "a", 3, 2)).toBeUndefined(); // a is now the newest
    expect(setNewest(map, "c", 4, 2)).toBe(2); // b forgotten, answered so its owner can release it
    expect([...map]).toEqual([
      ["a", 3],
      ["c", 4],
    ]);
  });
});

describe("BoundedMap", () => {
  it("keeps at most `capacity` entries, forgetting the least recently set (a read does not refresh)", () => {
    const map = new BoundedMap<string, number>(2);
    map.set("a", 1).set("b", 2);
    expect(map.get("a")).toBe(1);
    map.set("c", 3);
    expect([map.has("a"), map.has("b"), map.has("c"), map.size]).toEqual([false, true, true, 2]);
    map.set("b", 4).set("d", 5); // b set again: c is now the oldest
    expect([...map.values()]).toEqual([4, 5]);
    expect(map.delete("b")).toBe(true);
    expect(map.size).toBe(1);
  });

  it("keeps one entry when asked for fewer", () => {
    const map = new BoundedMap<string, number>(0);
    map.set("a", 1).set("b", 2);
    expect([...map.values()]).toEqual([2]);
  });
});
