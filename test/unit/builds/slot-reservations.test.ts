import { describe, expect, it } from "vitest";
import { SlotReservations } from "../../../src/builds/slot-reservations.ts";

describe("SlotReservations: slots taken by runs the backend does not show yet", () => {
  const none = new Set<string>();

  it("counts a reservation for its namespace until its run shows among the holders", () => {
    const slots = new SlotReservations(30_000);
    slots.reserve("builds/job-a", "team-a", 0);
    slots.reserve("builds/job-b", "team-b", 0);
    expect(slots.pending(none, "builds/job-c", 1_000).sort()).toEqual(["team-a", "team-b"]);
    // job-a now shows: it is counted as a holder, and its reservation ends
    expect(slots.pending(new Set(["builds/job-a"]), "builds/job-c", 2_000)).toEqual(["team-b"]);
    expect(slots.pending(none, "builds/job-c", 3_000)).toEqual(["team-b"]);
  });

  it("does not count the asking run's own reservation", () => {
    const slots = new SlotReservations(30_000);
    slots.reserve("builds/job-a", "team-a", 0);
    expect(slots.pending(none, "builds/job-a", 1_000)).toEqual([]);
    expect(slots.pending(none, "builds/job-b", 1_000)).toEqual(["team-a"]);
  });

  it("ends a reservation released (its run did not start) or older than its time to live", () => {
    const slots = new SlotReservations(30_000);
    slots.reserve("builds/job-a", "team-a", 0);
    slots.reserve("builds/job-b", "team-b", 0);
    slots.release("builds/job-a");
    expect(slots.pending(none, "", 29_999)).toEqual(["team-b"]);
    expect(slots.pending(none, "", 30_000)).toEqual([]);
  });
});
