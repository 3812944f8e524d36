/**
 * `npm run bench -- <name>`: runs bench/<name>.ts, whose default export returns the figures; prints
 * them as one JSON line with at least name, seconds, floor_seconds and ratio.
 */
import { readdirSync } from "node:fs";

export interface BenchFigures {
  seconds: number;
  floor_seconds: number;
  [figure: string]: unknown;
}

const name = process.argv[2];
const available = readdirSync(new URL(".", import.meta.url))
  .filter((file) => file.endsWith(".ts") && file !== "run.ts" && file !== "support.ts")
  .map((file) => file.slice(0, -3));
if (!name || !available.includes(name)) {
  process.stderr.write(`usage: npm run bench -- <name>   (one of: ${available.join(", ") || "none yet"})\n`);
  process.exit(2);
}
const bench = (await import(`./${name}.ts`)) as { default: () => Promise<BenchFigures> };
const figures = await bench.default();
const ratio = figures.floor_seconds > 0 ? figures.seconds / figures.floor_seconds : null;
process.stdout.write(
  `${JSON.stringify({ name, ...figures, ratio: ratio === null ? null : Number(ratio.toFixed(3)) })}\n`,
);
process.exit(0);
