/** The limits `slipway server` keeps under abuse, their defaults, and their flags and environment variables. */

export interface ServerLimits {
  /** Seconds an accepted or a rejected token is remembered; an open stream's token is reviewed again this often. */
  tokenCacheSeconds: number;
  /** Accepted tokens remembered (the least recently used is forgotten first); as many rejected ones, apart. */
  tokenCacheEntries: number;
  /** Authentication failures a client (its address) may cause per minute, in a burst or spread; then 429. */
  authFailuresPerMinute: number;
  /** Event streams and followed logs one user may have open at once; 429 beyond. */
  streamsPerUser: number;
  /** Event streams and followed logs the server serves at once; 429 beyond. */
  streamsTotal: number;
  /** Bytes a stream may have waiting for its reader for more than `streamDrainSeconds`; then it is dropped. */
  streamBufferBytes: number;
  /** Seconds a stream's reader has to take what is waiting beyond `streamBufferBytes`. */
  streamDrainSeconds: number;
}

export const defaultLimits: ServerLimits = {
  tokenCacheSeconds: 10,
  tokenCacheEntries: 1_000,
  authFailuresPerMinute: 30,
  streamsPerUser: 20,
  streamsTotal: 500,
  streamBufferBytes: 1024 * 1024,
  streamDrainSeconds: 10,
};

/** A limit's command-line flag and environment variable (the flag wins). */
export interface LimitFlag {
  key: keyof ServerLimits;
  flag: string;
  env: string;
  description: string;
}

const flag = (key: keyof ServerLimits, name: string, description: string): LimitFlag => ({
  key,
  flag: `--${name}`,
  env: `SLIPWAY_SERVER_${name.toUpperCase().replaceAll("-", "_")}`,
  description,
});

export const limitFlags: LimitFlag[] = [
  flag(
    "tokenCacheSeconds",
    "token-cache-seconds",
    "seconds a token's review is remembered and an open stream's token re-reviewed",
  ),
  flag("tokenCacheEntries", "token-cache-entries", "accepted tokens remembered (and as many rejected ones)"),
  flag(
    "authFailuresPerMinute",
    "auth-failures-per-minute",
    "authentication failures per client per minute before 429",
  ),
  flag("streamsPerUser", "streams-per-user", "open event streams and followed logs per user"),
  flag("streamsTotal", "streams-total", "open event streams and followed logs in total"),
  flag(
    "streamBufferBytes",
    "stream-buffer-bytes",
    "unread bytes a stream's reader may leave waiting for --stream-drain-seconds",
  ),
  flag(
    "streamDrainSeconds",
    "stream-drain-seconds",
    "seconds before a reader that leaves more waiting is dropped",
  ),
];

/** The limits from flag values as given (strings, or absent for the default); an error names the flag. */
export function parseLimits(values: Partial<Record<keyof ServerLimits, string>>): ServerLimits {
  const limits = { ...defaultLimits };
  for (const { key, flag: name, env } of limitFlags) {
    const value = values[key];
    if (value === undefined) continue;
    const number = Number(value);
    if (!/^\d+$/.test(value.trim()) || !Number.isSafeInteger(number) || number < 1)
      throw new Error(
        `${name} (or ${env}) must be a whole number of at least 1, not ${JSON.stringify(value)}`,
      );
    limits[key] = number;
  }
  return limits;
}
