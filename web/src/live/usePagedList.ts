import { useCallback, useEffect, useState } from "react";
import { ApiError, api, changesPath, type Page } from "../api.ts";
import { messageOf } from "../format.ts";
import { appendPage, applyPageChange, byApiOrder, type Named, type PageChange } from "./liveList.ts";
import { type StreamState, useEventStream } from "./useEventStream.ts";

export interface PagedList<T> extends StreamState {
  /** Undefined until the first page. */
  items: T[] | undefined;
  /** Objects after those loaded, when the API server tells; undefined when unknown or none. */
  remaining: number | undefined;
  /** Loads the next page; undefined when every page is loaded or one is loading. */
  more: (() => void) | undefined;
  /** Reads the first page again (and follows its changes). */
  reload: () => void;
  /** The first page's answer as the server gave it (a route may answer more than the page). */
  first: Page<T> | undefined;
}

interface Loaded<T> {
  /** Whose pages these are (`namespace/plural`): another's are not shown while the first page loads. */
  of: string;
  first: Page<T>;
  items: T[];
  next?: string;
  remaining?: number;
  resourceVersion?: string;
}

/**
 * A namespace's `plural` a page at a time (the server's list route, as the caller), kept live by
 * the changes after the first page's resourceVersion (no snapshot of the namespace); `more` adds
 * the next page. When the API server no longer has those changes (410), the first page is read again.
 */
export function usePagedList<T extends Named>(
  token: string,
  plural: string,
  namespace: string,
  onUnauthorized: () => void,
  onChange?: () => void,
): PagedList<T> {
  const [stored, setLoaded] = useState<Loaded<T>>();
  // a reload keeps the rows shown until the new first page is in
  const loaded = stored?.of === `${namespace}/${plural}` ? stored : undefined;
  const [problem, setProblem] = useState<string>();
  const [loading, setLoading] = useState(false);
  const [generation, setGeneration] = useState(0);
  const reload = useCallback(() => setGeneration((n) => n + 1), []);

  const failed = useCallback(
    (error: unknown) => {
      if (error instanceof ApiError && error.status === 401) return onUnauthorized();
      if (error instanceof ApiError && error.status === 410) return reload(); // a continue token too old
      setProblem(messageOf(error));
    },
    [onUnauthorized, reload],
  );

  // biome-ignore lint/correctness/useExhaustiveDependencies: generation asks for the first page again
  useEffect(() => {
    let current = true;
    api.page<T>(token, namespace, plural).then(
      (page) => {
        if (!current) return;
        setProblem(undefined);
        setLoaded({
          of: `${namespace}/${plural}`,
          first: page,
          items: [...page.items].sort(byApiOrder),
          next: page.continue,
          remaining: page.remainingItemCount,
          resourceVersion: page.resourceVersion,
        });
      },
      (error: unknown) => current && failed(error),
    );
    return () => {
      current = false;
    };
  }, [token, namespace, plural, generation, failed]);

  const onEvent = useCallback(
    (event: { event: string; data: unknown }) => {
      if (event.event === "expired") return reload();
      if (event.event !== "upsert" && event.event !== "delete") return;
      setLoaded(
        (current) =>
          current && {
            ...current,
            items: applyPageChange(current.items, event as PageChange<T>, current.next === undefined),
          },
      );
      onChange?.();
    },
    [reload, onChange],
  );
  const resourceVersion = loaded?.resourceVersion;
  const stream = useEventStream(
    token,
    resourceVersion ? changesPath(plural, namespace, resourceVersion) : undefined,
    onEvent,
    onUnauthorized,
  );

  const next = loaded?.next;
  const more =
    next === undefined || loading
      ? undefined
      : () => {
          setLoading(true);
          api
            .page<T>(token, namespace, plural, next)
            .then(
              (page) =>
                setLoaded(
                  (current) =>
                    current && {
                      ...current,
                      items: appendPage(current.items, page.items),
                      next: page.continue,
                      remaining: page.remainingItemCount,
                    },
                ),
              failed,
            )
            .finally(() => setLoading(false));
        };

  return {
    ...stream,
    error: problem ?? stream.error,
    items: loaded?.items,
    remaining: next === undefined ? undefined : loaded?.remaining,
    more,
    reload,
    first: loaded?.first,
  };
}
