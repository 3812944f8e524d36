import { useCallback, useState } from "react";
import { applyListEvent, type ListEvent, type Named } from "./liveList.ts";
import { type StreamState, useEventStream } from "./useEventStream.ts";

export interface LiveList<T> extends StreamState {
  /** Undefined until the first snapshot. */
  items: T[] | undefined;
}

/** The objects of an event stream (`/watch/...`), kept live; `onChange` sees each event after it applied. */
export function useLiveList<T extends Named>(
  token: string,
  path: string | undefined,
  onUnauthorized: () => void,
  onChange?: () => void,
): LiveList<T> {
  const [items, setItems] = useState<T[]>();
  const [forPath, setForPath] = useState(path);
  if (forPath !== path) {
    setForPath(path);
    setItems(undefined);
  }
  const onEvent = useCallback(
    (event: { event: string; data: unknown }) => {
      setItems((current) => applyListEvent(current ?? [], event as ListEvent<T>));
      onChange?.();
    },
    [onChange],
  );
  const stream = useEventStream(token, path, onEvent, onUnauthorized);
  return { ...stream, items };
}
