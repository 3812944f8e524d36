/** A schedule replaced by a backend that cannot change one: never two live ones, never none after a refusal. */
import { describe, expect, it } from "vitest";
import type { ProviderConfig, RunScheduleDefinition } from "../../../src/pipelines/backend.ts";
import { replaceSchedule } from "../../../src/pipelines/replace-schedule.ts";

const provider = { key: { namespace: "ml", name: "kfp" } } as ProviderConfig;
const definition = {} as RunScheduleDefinition;

/** Schedules in memory (id → enabled), the most enabled at once, and the calls that fail. */
function schedules(fail: { create?: boolean; delete?: string[]; resume?: boolean } = {}) {
  const live = new Map([["old", true]]);
  let next = 0;
  let mostEnabled = 1;
  const count = () => {
    mostEnabled = Math.max(mostEnabled, [...live.values()].filter(Boolean).length);
  };
  return {
    live,
    mostEnabled: () => mostEnabled,
    create: async () => {
      if (fail.create) throw new Error("create refused");
      const id = `new-${++next}`;
      live.set(id, true);
      count();
      return id;
    },
    delete: async (_at: unknown, id: string) => {
      if (fail.delete?.includes(id)) throw new Error(`delete ${id} refused`);
      live.delete(id);
    },
    pause: async (_at: unknown, id: string) => {
      if (live.has(id)) live.set(id, false);
    },
    resume: async (_at: unknown, id: string) => {
      if (fail.resume) throw new Error(`resume ${id} refused`);
      if (live.has(id)) live.set(id, true);
      count();
    },
  };
}

describe("replaceSchedule", () => {
  it("pauses the old one, creates the new one, deletes the old one: never two enabled", async () => {
    const objects = schedules();
    expect(await replaceSchedule(objects, provider, "old", definition, "recurring run")).toBe("new-1");
    expect([...objects.live]).toEqual([["new-1", true]]);
    expect(objects.mostEnabled()).toBe(1);
  });

  it("a refused create resumes the old one", async () => {
    const objects = schedules({ create: true });
    await expect(replaceSchedule(objects, provider, "old", definition, "recurring run")).rejects.toThrow(
      /^create refused$/,
    );
    expect([...objects.live]).toEqual([["old", true]]);
  });

  it("a refused create whose old one cannot be resumed says so", async () => {
    const objects = schedules({ create: true, resume: true });
    await expect(replaceSchedule(objects, provider, "old", definition, "recurring run")).rejects.toThrow(
      "create refused; the old recurring run old stays paused (resume old refused)",
    );
  });

  it("an old one that cannot be deleted: the new one goes again, the old one is resumed, the update fails", async () => {
    const objects = schedules({ delete: ["old"] });
    await expect(replaceSchedule(objects, provider, "old", definition, "recurring run")).rejects.toThrow(
      /^delete old refused$/,
    );
    expect([...objects.live]).toEqual([["old", true]]);
    expect(objects.mostEnabled()).toBe(1);
  });

  it("neither can be deleted: the error says so, and only the new one is enabled", async () => {
    const objects = schedules({ delete: ["old", "new-1"] });
    await expect(replaceSchedule(objects, provider, "old", definition, "Schedule")).rejects.toThrow(
      "delete old refused; the new Schedule new-1 or the old one's resumption failed too: delete whichever of the two is not wanted (delete new-1 refused)",
    );
    expect([...objects.live]).toEqual([
      ["old", false],
      ["new-1", true],
    ]);
  });
});
