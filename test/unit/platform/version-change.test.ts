import { describe, expect, it } from "vitest";
import { checkUpdate, type ReleaseCatalog, releaseCatalog } from "../../../src/platform/version-change.ts";

const versions = ["0.0.9", "0.1.0", "0.2.0"];
const catalog: ReleaseCatalog = {
  versions,
  find: (version) => versions.find((known) => known === version.replace(/^v/, "")),
  compare: (a, b) => a.localeCompare(b, "en", { numeric: true }),
};
const decide = (running: string | undefined, requested: string | undefined, target: string, force = false) =>
  checkUpdate(running, requested, target, { force, catalog });

describe("checkUpdate", () => {
  it("updates to a newer known version, in the catalog's spelling", () => {
    expect(decide("0.1.0", "0.1.0", "v0.2.0")).toEqual({ action: "update", from: "0.1.0", to: "0.2.0" });
  });
  it("refuses an unknown version, listing the known ones", () => {
    expect(decide("0.1.0", "0.1.0", "9.9.9")).toEqual({
      action: "refuse",
      reason: "unknown-version",
      target: "9.9.9",
      known: versions,
    });
  });
  it("refuses a downgrade unless forced", () => {
    expect(decide("0.1.0", "0.1.0", "0.0.9")).toEqual({
      action: "refuse",
      reason: "downgrade",
      target: "0.0.9",
      from: "0.1.0",
    });
    expect(decide("0.1.0", "0.1.0", "0.0.9", true)).toEqual({ action: "update", from: "0.1.0", to: "0.0.9" });
  });
  it("with 0.0.9 running and 0.2.0 asked for, 0.1.0 is a downgrade (from 0.2.0)", () => {
    expect(decide("0.0.9", "0.2.0", "0.1.0")).toMatchObject({
      action: "refuse",
      reason: "downgrade",
      from: "0.2.0",
    });
  });
  it("changes nothing when the version is already the one asked for", () => {
    expect(decide("0.1.0", "0.2.0", "0.2.0")).toEqual({ action: "unchanged", version: "0.2.0" });
  });
  it("updates a platform that has no version yet", () => {
    expect(decide(undefined, undefined, "0.0.9")).toEqual({ action: "update", from: undefined, to: "0.0.9" });
  });
  it("uses the release catalog this build ships by default", () => {
    expect(checkUpdate("0.1.0", "0.1.0", "0.0.9", { force: false })).toMatchObject({ reason: "downgrade" });
    expect(releaseCatalog.versions).toEqual(["0.0.9", "0.1.0", "0.2.0"]);
  });
});
