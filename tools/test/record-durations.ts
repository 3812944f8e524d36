/**
 * Writes test/durations.json (each file's seconds, for the duration sequencer) from the report of the
 * last whole run (.slipway/test-report.json). Run it after a full `make test` on a quiet machine.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { durationsOfReport, durationsPath } from "../../test/support/duration-sequencer.ts";
import { reportPath } from "../../test/support/summary-reporter.ts";

const durations = durationsOfReport(readFileSync(reportPath, "utf8"));
writeFileSync(durationsPath, `${JSON.stringify(durations, null, 2)}\n`);
console.log(`${durationsPath}: ${Object.keys(durations).length} files`);
