/** `slipway operator`'s client-side rate limit from its flags or environment (the flag wins). */
import { type ClientRateLimit, defaultClientRateLimit } from "../kube/rate-limit.ts";

export const clientRateLimitFlags = {
  qps: { flag: "--kube-api-qps", env: "SLIPWAY_KUBE_API_QPS" },
  burst: { flag: "--kube-api-burst", env: "SLIPWAY_KUBE_API_BURST" },
} as const;

/**
 * The rate limit from flag values (absent: the environment's, else the default); an error names
 * the flag, its variable and the rule: qps a number above 0, burst a whole number of at least 1.
 */
export function parseClientRateLimit(
  flags: { qps?: string; burst?: string },
  env: Record<string, string | undefined> = process.env,
): ClientRateLimit {
  const value = (key: keyof typeof clientRateLimitFlags) =>
    flags[key] ?? env[clientRateLimitFlags[key].env] ?? undefined;
  const refuse = (key: keyof typeof clientRateLimitFlags, rule: string, given: string) => {
    const { flag, env: variable } = clientRateLimitFlags[key];
    return new Error(`${flag} (or ${variable}) must be ${rule}, not ${JSON.stringify(given)}`);
  };
  const limit = { ...defaultClientRateLimit };
  const qps = value("qps");
  if (qps !== undefined) {
    const number = Number(qps);
    if (qps.trim() === "" || !Number.isFinite(number) || number <= 0)
      throw refuse("qps", "a number of requests a second above 0", qps);
    limit.qps = number;
  }
  const burst = value("burst");
  if (burst !== undefined) {
    const number = Number(burst);
    if (!/^\d+$/.test(burst.trim()) || !Number.isSafeInteger(number) || number < 1)
      throw refuse("burst", "a whole number of at least 1", burst);
    limit.burst = number;
  }
  return limit;
}
