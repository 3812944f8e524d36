import { TooManyRequests } from "../errors.ts";

/** Why a stream may not open: the caller's own cap, or the server's. */
export type StreamRefusal = "user" | "total";

/** The rule (pure): may one more stream open, given the caller's and the server's open streams? */
export function streamRefusal(
  open: { user: number; total: number },
  caps: { perUser: number; total: number },
): StreamRefusal | undefined {
  if (open.total >= caps.total) return "total";
  if (open.user >= caps.perUser) return "user";
  return undefined;
}

/** Seconds a refused client is told to wait (a slot frees when some stream closes; none is promised). */
const retryAfterSeconds = 5;

/**
 * The long-lived responses (event streams, followed logs) open per user and in total. A slot is
 * taken before the upstream watch starts, so a refused stream costs the API server nothing.
 */
export class StreamSlots {
  readonly #perUser = new Map<string, number>();
  readonly #caps: { perUser: number; total: number };
  #total = 0;

  constructor(caps: { perUser: number; total: number }) {
    this.#caps = caps;
  }

  /** Takes a slot for `user` and returns its release (idempotent); TooManyRequests beyond a cap. */
  take(user: string): () => void {
    const refusal = streamRefusal({ user: this.#perUser.get(user) ?? 0, total: this.#total }, this.#caps);
    if (refusal === "user")
      throw tooManyStreams(`${user} has ${this.#caps.perUser} streams open, the most one user may`);
    if (refusal === "total")
      throw tooManyStreams(`the server has ${this.#caps.total} streams open, the most it serves`);
    this.#perUser.set(user, (this.#perUser.get(user) ?? 0) + 1);
    this.#total++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.#total--;
      const left = (this.#perUser.get(user) ?? 1) - 1;
      if (left > 0) this.#perUser.set(user, left);
      else this.#perUser.delete(user);
    };
  }

  get total(): number {
    return this.#total;
  }
}

const tooManyStreams = (why: string) =>
  new TooManyRequests(`too many streams: ${why}; close one (another tab?) and try again`, retryAfterSeconds);
