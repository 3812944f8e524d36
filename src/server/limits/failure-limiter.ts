import { setNewest } from "../../lib/bounded-map.ts";

/** A client's allowance of authentication failures: a token bucket holding up to `perMinute`. */
export interface Allowance {
  tokens: number;
  at: number;
}

/** The allowance at `now`: refilled at `perMinute` per minute since it was last counted, up to `perMinute`. */
export function refilled(allowance: Allowance | undefined, perMinute: number, now: number): Allowance {
  if (!allowance) return { tokens: perMinute, at: now };
  const tokens = Math.min(perMinute, allowance.tokens + ((now - allowance.at) * perMinute) / 60_000);
  return { tokens, at: now };
}

/** Whole seconds until an empty allowance holds one failure again (at least 1). */
export function secondsUntilNext(allowance: Allowance, perMinute: number): number {
  return Math.max(1, Math.ceil(((1 - allowance.tokens) * 60) / perMinute));
}

/** How many clients are remembered; past it the one not heard from longest is forgotten. */
const rememberedClients = 10_000;

/**
 * Per-client rate limit on authentication failures. Every token review a client causes takes one
 * unit before it runs (so concurrent guesses count too) and an accepted token gives it back; an
 * empty allowance answers `retryAfterSeconds` instead of reviewing.
 */
export class FailureLimiter {
  readonly #clients = new Map<string, Allowance>();
  readonly #perMinute: number;

  constructor(perMinute: number) {
    this.#perMinute = perMinute;
  }

  /** Takes one unit for `client`; undefined when it may go on, else the seconds to wait. */
  take(client: string, now: number): number | undefined {
    const allowance = refilled(this.#clients.get(client), this.#perMinute, now);
    if (allowance.tokens < 1) {
      setNewest(this.#clients, client, allowance, rememberedClients);
      return secondsUntilNext(allowance, this.#perMinute);
    }
    setNewest(this.#clients, client, { ...allowance, tokens: allowance.tokens - 1 }, rememberedClients);
    return undefined;
  }

  /** Gives back the unit of a review whose token was accepted. */
  refund(client: string, now: number): void {
    const allowance = refilled(this.#clients.get(client), this.#perMinute, now);
    const tokens = Math.min(this.#perMinute, allowance.tokens + 1);
    setNewest(this.#clients, client, { ...allowance, tokens }, rememberedClients);
  }
}
