import { describe, expect, it } from "vitest";
import { setNewest } from "../../../src/lib/bounded-map.ts";

describe("setNewest", () => {
  it("keeps at most `limit` entries, forgetting the least recently set", () => {
    const map = new Map<string, number>();
    setNewest(map, "a", 1, 2);
    setNewest(map, "b", 2, 2);
    setNewest(map, "a", 3, 2); // a is now the newest
    setNewest(map, "c", 4, 2);
    expect([...map]).toEqual([
      ["a", 3],
      ["c", 4],
    ]);
  });
});
