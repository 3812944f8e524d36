import { useEffect, useRef, useState } from "react";
import { ApiError, followPlatformEvents, type PlatformEvent, type PlatformView } from "./api.ts";

export type Connection = "connecting" | "live" | "reconnecting";

export interface PlatformState {
  platform: PlatformView | undefined;
  /** True once the server said the Platform does not exist. */
  absent: boolean;
  connection: Connection;
  /** Why the stream is not live (e.g. the token's user may not watch the Platform). */
  error?: string;
}

/**
 * The Platform, kept live by the event stream; reconnects with backoff when the stream drops.
 * `onEvent` sees every event (the Update page builds its log from them). A 401 signs the user out.
 */
export function usePlatform(
  token: string,
  onUnauthorized: () => void,
  onEvent?: (event: PlatformEvent) => void,
): PlatformState {
  const [state, setState] = useState<PlatformState>({
    platform: undefined,
    absent: false,
    connection: "connecting",
  });
  const listener = useRef(onEvent);
  listener.current = onEvent;

  useEffect(() => {
    const controller = new AbortController();
    const run = async () => {
      for (let attempt = 0; !controller.signal.aborted; attempt++) {
        try {
          await followPlatformEvents(
            token,
            (event) => {
              attempt = 0;
              if (event.event === "platform")
                setState({ platform: event.data, absent: false, connection: "live" });
              if (event.event === "absent")
                setState({ platform: undefined, absent: true, connection: "live" });
              listener.current?.(event);
            },
            controller.signal,
          );
        } catch (error) {
          if (controller.signal.aborted) return;
          if (error instanceof ApiError && error.status === 401) return onUnauthorized();
          const message = error instanceof Error ? error.message : String(error);
          setState((previous) => ({ ...previous, connection: "reconnecting", error: message }));
          await new Promise((resolve) => setTimeout(resolve, Math.min(500 * 2 ** attempt, 10_000)));
          continue;
        }
        setState((previous) => ({ ...previous, connection: "reconnecting" }));
        await new Promise((resolve) => setTimeout(resolve, Math.min(500 * 2 ** attempt, 10_000)));
      }
    };
    void run();
    return () => controller.abort();
  }, [token, onUnauthorized]);

  return state;
}
