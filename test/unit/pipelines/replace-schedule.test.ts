/** A schedule replaced by a backend that cannot change one: never two live ones, never none after a refused create. */
import { describe, expect, it } from "vitest";
import type { ProviderConfig, RunScheduleDefinition } from "../../../src/pipelines/backend.ts";
import { replaceSchedule } from "../../../src/pipelines/replace-schedule.ts";

const provider = { key: { namespace: "ml", name: "kfp" } } as ProviderConfig;
const definition = {} as RunScheduleDefinition;

/** Live schedules in memory, with the calls that fail. */
function schedules(fail: { create?: boolean; delete?: string[] } = {}) {
  const live = new Set(["old"]);
  let next = 0;
  return {
    live,
    create: async () => {
      if (fail.create) throw new Error("create refused");
      const id = `new-${++next}`;
      live.add(id);
      return id;
    },
    delete: async (_at: unknown, id: string) => {
      if (fail.delete?.includes(id)) throw new Error(`delete ${id} refused`);
      live.delete(id);
    },
  };
}

describe("replaceSchedule", () => {
  it("creates the new one, then deletes the old one", async () => {
    const objects = schedules();
    expect(await replaceSchedule(objects, provider, "old", definition, "recurring run")).toBe("new-1");
    expect([...objects.live]).toEqual(["new-1"]);
  });

  it("a refused create leaves the old one live", async () => {
    const objects = schedules({ create: true });
    await expect(replaceSchedule(objects, provider, "old", definition, "recurring run")).rejects.toThrow(
      "create refused",
    );
    expect([...objects.live]).toEqual(["old"]);
  });

  it("an old one that cannot be deleted: the new one goes again, the update fails", async () => {
    const objects = schedules({ delete: ["old"] });
    await expect(replaceSchedule(objects, provider, "old", definition, "recurring run")).rejects.toThrow(
      "delete old refused",
    );
    expect([...objects.live]).toEqual(["old"]);
  });

  it("neither can be deleted: the error says both are live", async () => {
    const objects = schedules({ delete: ["old", "new-1"] });
    await expect(replaceSchedule(objects, provider, "old", definition, "Schedule")).rejects.toThrow(
      "delete old refused; the new Schedule new-1 could not be deleted either (delete new-1 refused): both start runs until one is deleted",
    );
  });
});
