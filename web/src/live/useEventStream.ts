import { useEffect, useRef, useState } from "react";
import { ApiError, readEventStream } from "../api.ts";
import { messageOf } from "../format.ts";
import { pause, reconnectDelayMs } from "./liveList.ts";

export type Connection = "connecting" | "live" | "reconnecting";

export interface StreamState {
  connection: Connection;
  /** Why the stream is not live (e.g. the user may not watch these resources). */
  error?: string;
}

/**
 * Follows the event stream of `path` (undefined: none) and hands each event to `onEvent`; after a
 * drop it reconnects with backoff (the server starts again with a snapshot, or from the same
 * resourceVersion). A 401 signs the user out; a 410 (that resourceVersion is gone) is an `expired` event.
 */
export function useEventStream(
  token: string,
  path: string | undefined,
  onEvent: (event: { event: string; data: unknown }) => void,
  onUnauthorized: () => void,
): StreamState {
  const [state, setState] = useState<StreamState>({ connection: "connecting" });
  const listener = useRef(onEvent);
  listener.current = onEvent;

  useEffect(() => {
    if (!path) return;
    const controller = new AbortController();
    const { signal } = controller;
    setState({ connection: "connecting" });
    const run = async () => {
      for (let attempt = 0; !signal.aborted; attempt++) {
        try {
          await readEventStream(
            path,
            token,
            (event) => {
              attempt = 0;
              setState({ connection: "live" });
              listener.current(event);
            },
            signal,
          );
          if (!signal.aborted) setState((previous) => ({ ...previous, connection: "reconnecting" }));
        } catch (error) {
          if (signal.aborted) return;
          if (error instanceof ApiError && error.status === 401) return onUnauthorized();
          // the changes since a page's resourceVersion are gone: the page is read again
          if (error instanceof ApiError && error.status === 410)
            return listener.current({ event: "expired", data: {} });
          setState({ connection: "reconnecting", error: messageOf(error) });
        }
        await pause(reconnectDelayMs(attempt), signal);
      }
    };
    void run();
    return () => controller.abort();
  }, [token, path, onUnauthorized]);

  return state;
}
