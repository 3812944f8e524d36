import { describe, expect, it } from "vitest";
import { followEvent, startFollow } from "../../../web/src/updateLog.ts";

const now = new Date("2026-01-01T10:00:00Z");
const start = () => startFollow("0.1.0", "0.0.9", now);

describe("the Update page's log", () => {
  it("starts with the request and succeeds only when Running at the target version", () => {
    let follow = start();
    expect(follow.lines).toEqual([
      { at: "10:00:00", text: "Update from 0.0.9 to 0.1.0 requested", tone: "info" },
    ]);
    follow = followEvent(follow, { event: "phase", data: { phase: "Running", version: "0.0.9" } }, now);
    expect(follow.outcome).toBe("following");
    follow = followEvent(
      follow,
      { event: "component", data: { name: "postgres", phase: "Ready", ready: "1/1", version: "0.1.0" } },
      now,
    );
    expect(follow.lines.at(-1)?.text).toBe("postgres: Ready, 1/1 ready, version 0.1.0");
    follow = followEvent(follow, { event: "phase", data: { phase: "Running", version: "0.1.0" } }, now);
    expect(follow.outcome).toBe("succeeded");
    expect(follow.lines.at(-1)).toEqual({
      at: "10:00:00",
      text: "Platform Running at 0.1.0: update complete",
      tone: "good",
    });
  });

  it("shows a failure with its reason, and a failing component in red", () => {
    let follow = followEvent(
      start(),
      {
        event: "component",
        data: { name: "mlflow", phase: "Failed", ready: "0/1", message: "CrashLoopBackOff: exit code 1" },
      },
      now,
    );
    expect(follow.lines.at(-1)).toMatchObject({
      text: "mlflow: Failed, 0/1 ready — CrashLoopBackOff: exit code 1",
      tone: "bad",
    });
    follow = followEvent(
      follow,
      { event: "phase", data: { phase: "Failed", version: "0.0.9", message: "mlflow: CrashLoopBackOff" } },
      now,
    );
    expect(follow.outcome).toBe("failed");
    expect(follow.lines.at(-1)).toMatchObject({
      text: "Platform Failed (running 0.0.9): mlflow: CrashLoopBackOff",
      tone: "bad",
    });
  });
});
