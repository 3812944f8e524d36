/** `GET /platform/events`: the Platform's states as server-sent events. */
import type { FastifyReply, FastifyRequest } from "fastify";
import { followedEventStream } from "../sse.ts";
import { followPlatform } from "./follow.ts";
import type { PlatformKey } from "./platforms.ts";
import { type PlatformLike, type PlatformView, platformChanges, platformView } from "./view.ts";

type Send = (event: string, data: unknown) => void;

/** Turns the Platform's successive states into events: the full view and each change, or `absent` once it is gone. */
class PlatformEvents {
  readonly #key: PlatformKey;
  readonly #send: Send;
  #previous: PlatformView | undefined;

  constructor(key: PlatformKey, send: Send) {
    this.#key = key;
    this.#send = send;
  }

  state(platform: PlatformLike | undefined): void {
    if (!platform) {
      if (this.#previous) this.#absent();
      this.#previous = undefined;
      return;
    }
    const next = platformView(platform);
    const changes = platformChanges(this.#previous, next);
    this.#previous = next;
    if (changes.length === 0) return;
    this.#send("platform", next);
    for (const change of changes) this.#send(change.event, change.data);
  }

  /** After the first list: a Platform that does not exist is reported `absent` at once. */
  listed(): void {
    if (!this.#previous) this.#absent();
  }

  #absent(): void {
    this.#send("absent", { name: this.#key.name, namespace: this.#key.namespace });
  }
}

/** The handler of the event stream of the Platform `key`, as the caller. */
export function platformEventsHandler(key: PlatformKey, heartbeatMs: number | undefined) {
  return async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
    await followedEventStream(request, reply, heartbeatMs, async (feed) => {
      const events = new PlatformEvents(key, feed.send);
      await followPlatform(request.rest, key, {
        onState: (platform) => events.state(platform),
        onFailure: (error) => {
          request.log.warn({ err: error }, "platform watch failed; closing the event stream");
          feed.close();
        },
        signal: feed.signal,
        log: request.log,
      });
      events.listed();
    });
  };
}
