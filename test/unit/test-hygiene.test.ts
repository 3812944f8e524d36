import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { fixedSleeps } from "../support/fixed-sleeps.ts";

const root = fileURLToPath(new URL("../..", import.meta.url));
// the planted examples are put together here, so this file's own source holds none
const timeout = ["set", "Timeout"].join("");
const sleep = ["sle", "ep"].join("");

describe("test hygiene: no fixed sleep over 200 ms in test/", () => {
  it("finds none in the test sources (file:line of each one found)", () => {
    const files = readdirSync(join(root, "test"), { recursive: true, encoding: "utf8" }).filter((f) =>
      /\.tsx?$/.test(f),
    );
    expect(files.length).toBeGreaterThan(100);
    const found = files.flatMap((file) =>
      fixedSleeps(readFileSync(join(root, "test", file), "utf8")).map(
        (sleep) => `test/${file}:${sleep.line}: ${sleep.text}`,
      ),
    );
    expect(found).toEqual([]);
  });

  it("catches a planted sleep in each form it is written, with its line and milliseconds", () => {
    const source = [
      `it("waits", async () => {`,
      `  await new Promise((resolve) => ${timeout}(resolve, 1_500));`,
      `  await new Promise((r) => ${timeout}(() => r(), 250));`,
      `  await ${sleep}(2000);`,
      `  await ${timeout}(300); // node:timers/promises`,
      `  await new Promise((resolve) =>`,
      `    ${timeout}(`,
      `      resolve,`,
      `      1000,`,
      `    ),`,
      `  );`,
      "});",
    ].join("\n");
    expect(fixedSleeps(source)).toEqual([
      { line: 2, ms: 1500, text: `${timeout}(resolve, 1_500)` },
      { line: 3, ms: 250, text: `${timeout}(() => r(), 250)` },
      { line: 4, ms: 2000, text: `${sleep}(2000)` },
      { line: 5, ms: 300, text: `${timeout}(300)` },
      { line: 7, ms: 1000, text: `${timeout}( resolve, 1000, )` },
    ]);
  });

  it("leaves short sleeps, deadlines, sleeps of a variable and comments alone", () => {
    const source = [
      `await new Promise((resolve) => ${timeout}(resolve, 200));`,
      `await ${sleep}(100);`,
      `const late = new Promise((_, reject) => ${timeout}(() => reject(new Error("no answer")), 60_000));`,
      `const sentinel = new Promise((resolve) => ${timeout}(() => resolve("still open"), 15_000));`,
      `await new Promise((resolve) => ${timeout}(resolve, current.delayMs));`,
      `// await ${sleep}(5000) was here`,
    ].join("\n");
    expect(fixedSleeps(source)).toEqual([]);
    // comment lines (and blank ones before them) keep the lines' numbers
    expect(fixedSleeps(`/**\n * a doc\n */\n\n  // a note\nawait ${sleep}(500);`)).toEqual([
      { line: 6, ms: 500, text: `${sleep}(500)` },
    ]);
  });
});
