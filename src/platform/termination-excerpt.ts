/**
 * What a container last said, as a bounded excerpt for a status message (pure). The input is its
 * termination message: with `terminationMessagePolicy: FallbackToLogsOnError` the kubelet's tail of
 * its log (at most 80 lines / 2048 bytes). A crash ends with its error (a Python traceback's last
 * line, a Go program's `Error: …`), so the excerpt keeps the last lines; each is cut at its end, not
 * its start, since an error line starts with what failed and the value it failed on (mlflow's
 * `UnsupportedModelRegistryStoreURIException: … got unsupported URI 'x://…'. Supported URI schemes
 * are: [… 300 more characters]`). Credentials are masked before anything is cut.
 */
import { clip } from "../lib/clip.ts";

/** How many of the last lines are kept, and how long each may be. */
export const excerptLimits = { lines: 3, lineLength: 200 } as const;

/** A line that reports a failure: kept in front when only shutdown chatter follows it. */
const errorLine = /error|exception|fatal|panic|fail|refused|denied|invalid|cannot|unable/i;

/** Lines with nothing to read: Python's `~~~^^^` markers under a traceback's source line. */
const markerLine = /^[~^\s]+$/;

/**
 * Credentials a log line may carry: a URL's password (`//user:pw@`), `Bearer <token>`, and the value
 * of a `name=value` / `name: value` whose name says password, secret or token.
 */
export function maskCredentials(line: string): string {
  return line
    .replace(/(\/\/[^\s/:@]*:)[^\s/@]*@/g, "$1***@")
    .replace(/\b(Bearer\s+)[\w.~+/=-]+/gi, "$1***")
    .replace(/\b([\w.-]*(?:password|passwd|secret|token)[\w.-]*["']?\s*[=:]\s*["']?)[^\s"',;&]+/gi, "$1***");
}

const cut = (line: string) => clip(line, excerptLimits.lineLength);

/** The excerpt, lines joined by " | " ("" for an empty message). */
export function terminationExcerpt(message: string | undefined): string {
  const lines = (message ?? "")
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line && !markerLine.test(line))
    .map(maskCredentials);
  const kept = lines.slice(-excerptLimits.lines);
  if (!kept.some((line) => errorLine.test(line))) {
    const earlier = lines.slice(0, -excerptLimits.lines).findLast((line) => errorLine.test(line));
    if (earlier) kept.unshift(earlier, "…");
  }
  return kept.map(cut).join(" | ");
}
