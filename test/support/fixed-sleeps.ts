/**
 * Fixed sleeps in test source: a wait of a set number of milliseconds that stands for a condition
 * (a poll happened, an operator reconciled, a TTL expired). The suite's hygiene check
 * (test/unit/test-hygiene.test.ts) fails on one over 200 ms; wait on the condition with `eventually`,
 * or step an injected clock, instead. A deadline (`setTimeout(() => reject(…), ms)`) is not a sleep.
 */
export interface FixedSleep {
  line: number;
  ms: number;
  /** The sleep as written. */
  text: string;
}

const number = String.raw`(\d[\d_]*(?:\.\d+)?)`;
const sleeps = [
  // new Promise((resolve) => setTimeout(resolve, 1500)); also () => resolve()
  new RegExp(
    String.raw`setTimeout\(\s*(?:[A-Za-z_$][\w$]*|\(\)\s*=>\s*[A-Za-z_$][\w$]*\(\s*\))\s*,\s*${number}\s*,?\s*\)`,
    "g",
  ),
  // await sleep(1500), delay(…), wait(…)
  new RegExp(String.raw`\b(?:sleep|delay|wait)\(\s*${number}\s*\)`, "g"),
  // node:timers/promises: await setTimeout(1500)
  new RegExp(String.raw`setTimeout\(\s*${number}\s*[,)]`, "g"),
];

/** Every fixed sleep over `limitMs` in `source` (comment lines left out), in line order. */
export function fixedSleeps(source: string, limitMs = 200): FixedSleep[] {
  const text = source.replace(/^[ \t]*(?:\/\/|\*).*$/gm, (comment) => " ".repeat(comment.length));
  const found: FixedSleep[] = [];
  for (const pattern of sleeps)
    for (const match of text.matchAll(pattern)) {
      const ms = Number((match[1] ?? "").replaceAll("_", ""));
      if (ms <= limitMs) continue;
      const line = text.slice(0, match.index).split("\n").length;
      found.push({ line, ms, text: match[0].replace(/\s+/g, " ") });
    }
  return found.sort((a, b) => a.line - b.line);
}
