import { useCallback, useRef, useState } from "react";
import type { PlatformEvent, PlatformView } from "./api.ts";
import { type Connection, useEventStream } from "./live/useEventStream.ts";

export type { Connection };

export interface PlatformState {
  platform: PlatformView | undefined;
  /** True once the server said the Platform does not exist. */
  absent: boolean;
  connection: Connection;
  /** Why the stream is not live (e.g. the token's user may not watch the Platform). */
  error?: string;
}

/**
 * The Platform, kept live by the event stream (reconnecting with backoff when it drops). `onEvent`
 * sees every event (the Update page builds its log from them). A 401 signs the user out. `active`
 * false: no stream (another page is shown).
 */
export function usePlatform(
  token: string,
  onUnauthorized: () => void,
  onEvent?: (event: PlatformEvent) => void,
  active = true,
): PlatformState {
  const [platform, setPlatform] = useState<{ view?: PlatformView; absent: boolean }>({ absent: false });
  const listener = useRef(onEvent);
  listener.current = onEvent;
  const handle = useCallback((raw: { event: string; data: unknown }) => {
    const event = raw as PlatformEvent;
    if (event.event === "platform") setPlatform({ view: event.data, absent: false });
    if (event.event === "absent") setPlatform({ absent: true });
    listener.current?.(event);
  }, []);
  const stream = useEventStream(token, active ? "/platform/events" : undefined, handle, onUnauthorized);
  return { platform: platform.view, absent: platform.absent, ...stream };
}
