/**
 * The pins of tools/setup/debian-packages.txt (tools/setup/debian-version.sh): which Debian version
 * each stands for among those the apt sources serve. The served list is given to the shell function
 * in place of apt-cache's, so the rule is tested on its own.
 */
import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

const script = join(import.meta.dirname, "../../../tools/setup/debian-version.sh");

function resolve(pin: string, served: string[]): string | undefined {
  const program = `source "$1"; served_versions() { printf '%s\\n' ${served.map((v) => `'${v}'`).join(" ")}; }; resolve_pin pkg "$2" || echo NONE`;
  const out = execFileSync("bash", ["-c", program, "bash", script, pin], { encoding: "utf8" });
  return out === "NONE\n" ? undefined : out;
}

const postgres = ["15.20-0+deb12u1", "15.18-0+deb12u1"];

describe("resolve_pin", () => {
  it("an upstream version stands for Debian's newest served revision of it, whatever order apt lists them in", () => {
    expect(resolve("15.20", postgres)).toBe("15.20-0+deb12u1");
    expect(resolve("15.18", postgres)).toBe("15.18-0+deb12u1");
    expect(resolve("3.11.2", ["3.11.2-6+deb12u8", "3.11.2-6+deb12u9", "3.11.2-6"])).toBe("3.11.2-6+deb12u9");
    expect(resolve("1.28.2", ["1.28.2+ds1-3+deb12u1+b3"])).toBe("1.28.2+ds1-3+deb12u1+b3");
    expect(resolve("2.8.2", ["2.8.2+ds1-1"])).toBe("2.8.2+ds1-1");
  });

  it("an exact Debian version stands for itself only", () => {
    expect(resolve("15.18-0+deb12u1", postgres)).toBe("15.18-0+deb12u1");
    expect(resolve("15.18-0+deb12u2", postgres)).toBeUndefined();
  });

  it("newest stands for the highest served version by Debian's ordering", () => {
    expect(resolve("newest", ["2025b-0+deb12u1", "2026f-0+deb12u1", "2026b-0+deb12u1"])).toBe(
      "2026f-0+deb12u1",
    );
  });

  it("an upstream version no source serves resolves to nothing (set-up then fails naming it)", () => {
    expect(resolve("15.19", postgres)).toBeUndefined();
    expect(resolve("15.2", postgres)).toBeUndefined();
    expect(resolve("15.20", [])).toBeUndefined();
  });
});
