/** `GET /platform/events`: the Platform's states as server-sent events. */
import type { FastifyReply, FastifyRequest } from "fastify";
import { type EventStream, openEventStream } from "../sse.ts";
import { followPlatform } from "./follow.ts";
import type { PlatformKey } from "./platforms.ts";
import { type PlatformLike, type PlatformView, platformChanges, platformView } from "./view.ts";

/**
 * Turns the Platform's successive states into events: the full view and each change, or `absent`
 * once it is gone. States that arrive before the stream is open wait for it.
 */
class PlatformEvents {
  readonly #key: PlatformKey;
  readonly #waiting: (PlatformLike | undefined)[] = [];
  #previous: PlatformView | undefined;
  #stream: EventStream | undefined;

  constructor(key: PlatformKey) {
    this.#key = key;
  }

  state(platform: PlatformLike | undefined): void {
    if (this.#stream) this.#send(this.#stream, platform);
    else this.#waiting.push(platform);
  }

  /** Sends what waited; a Platform that does not exist is reported `absent` at once. */
  open(stream: EventStream): void {
    this.#stream = stream;
    for (const platform of this.#waiting.splice(0)) this.#send(stream, platform);
    if (!this.#previous) this.#absent(stream);
  }

  #send(stream: EventStream, platform: PlatformLike | undefined): void {
    if (!platform) {
      if (this.#previous) this.#absent(stream);
      this.#previous = undefined;
      return;
    }
    const next = platformView(platform);
    const changes = platformChanges(this.#previous, next);
    this.#previous = next;
    if (changes.length === 0) return;
    stream.send("platform", next);
    for (const change of changes) stream.send(change.event, change.data);
  }

  #absent(stream: EventStream): void {
    stream.send("absent", { name: this.#key.name, namespace: this.#key.namespace });
  }
}

/** The handler of the event stream of the Platform `key`, as the caller. */
export function platformEventsHandler(key: PlatformKey, heartbeatMs: number | undefined) {
  return async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
    const controller = new AbortController();
    const events = new PlatformEvents(key);
    let stream: EventStream | undefined;
    // The first list runs before the response is taken over, so a 403/404 is still a JSON answer.
    await followPlatform(request.kube, key, {
      onState: (platform) => events.state(platform),
      onFailure: (error) => {
        request.log.warn({ err: error }, "platform watch failed; closing the event stream");
        stream?.close();
      },
      signal: controller.signal,
      log: request.log,
    }).catch((error: unknown) => {
      controller.abort();
      throw error;
    });
    stream = openEventStream(request, reply, heartbeatMs);
    stream.onClose(() => controller.abort());
    events.open(stream);
  };
}
