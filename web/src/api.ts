import type { UpdatePreview } from "../../src/platform/update-preview.ts";
import type { ComponentView, PlatformView } from "../../src/server/platform/view.ts";

import type {
  BuildSpec,
  BuildView,
  HistoryView,
  NamespaceAccess,
  PipelineView,
  ProviderView,
  RunView,
} from "./views.ts";

export type { ComponentView, PlatformView, UpdatePreview };

export interface VersionsView {
  running?: string;
  desired?: string;
  versions: { version: string; current: boolean; upgrade: boolean }[];
}

export interface UpdateAnswer {
  changed: boolean;
  from?: string;
  to: string;
  platform: PlatformView;
}

/** An error answer of the API (its JSON error shape), or a network failure (status 0). */
export class ApiError extends Error {
  readonly status: number;
  readonly field: string | undefined;
  constructor(status: number, message: string, field?: string) {
    super(message);
    this.status = status;
    this.field = field;
  }
}

const tokenKey = "slipway.token";

/** The bearer token lives in sessionStorage: gone when the tab closes, never in a URL or cookie. */
export const session = {
  token: (): string | null => sessionStorage.getItem(tokenKey),
  signIn: (token: string) => sessionStorage.setItem(tokenKey, token),
  signOut: () => sessionStorage.removeItem(tokenKey),
};

async function request<T>(path: string, token: string, init: RequestInit = {}): Promise<T> {
  let response: Response;
  try {
    response = await fetch(`/api/v1${path}`, {
      ...init,
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json", ...init.headers },
    });
  } catch {
    throw new ApiError(0, "cannot reach the Slipway server");
  }
  const body = await response.json().catch(() => undefined);
  if (!response.ok) {
    const error = body as { message?: string; field?: string } | undefined;
    throw new ApiError(
      response.status,
      error?.message ?? `the server answered ${response.status}`,
      error?.field,
    );
  }
  return body as T;
}

const post = (body: unknown): RequestInit => ({ method: "POST", body: JSON.stringify(body) });
const inNamespace = (namespace: string, rest: string) =>
  `/namespaces/${encodeURIComponent(namespace)}${rest}`;

/** One page of a list route (`limit` + `continue`, passed to the API server), see docs/server.md. */
export interface Page<T> {
  items: T[];
  continue?: string;
  remainingItemCount?: number;
  resourceVersion?: string;
}

/** How many objects a list page of the UI asks for. */
export const listPageSize = 100;

export const api = {
  page: <T>(token: string, namespace: string, plural: string, next?: string) => {
    const query = new URLSearchParams({ limit: String(listPageSize), ...(next ? { continue: next } : {}) });
    return request<Page<T>>(inNamespace(namespace, `/${plural}?${query}`), token);
  },
  platform: (token: string) => request<PlatformView>("/platform", token),
  versions: (token: string) => request<VersionsView>("/platform/versions", token),
  update: (token: string, version: string) =>
    request<UpdateAnswer>("/platform/update", token, post({ version })),
  /** What updating to `version` would change, per component; applies nothing. */
  updatePreview: (token: string, version: string) =>
    request<UpdatePreview>("/platform/update/dry-run", token, post({ version })),
  namespaces: (token: string, include: string[]) => {
    const query = new URLSearchParams(include.map((name): [string, string] => ["include", name])).toString();
    return request<{ namespaces: NamespaceAccess[] }>(`/namespaces${query ? `?${query}` : ""}`, token);
  },
  createBuild: (token: string, namespace: string, body: { name: string; spec: BuildSpec }) =>
    request<BuildView>(inNamespace(namespace, "/imagebuilds"), token, post(body)),
  pipelines: (token: string, namespace: string) =>
    request<{ items: PipelineView[] }>(inNamespace(namespace, "/pipelines"), token),
  pipeline: (token: string, namespace: string, name: string) =>
    request<PipelineView>(inNamespace(namespace, `/pipelines/${encodeURIComponent(name)}`), token),
  history: (token: string, namespace: string, name: string) =>
    request<HistoryView>(inNamespace(namespace, `/pipelines/${encodeURIComponent(name)}/history`), token),
  createRun: (token: string, namespace: string, body: StartRunBody) =>
    request<RunView>(inNamespace(namespace, "/runs"), token, post(body)),
  stepLog: (token: string, namespace: string, run: string, step: string) =>
    request<{ pod: string; container: string; logs: string }>(
      inNamespace(namespace, `/runs/${encodeURIComponent(run)}/steps/${encodeURIComponent(step)}/logs`),
      token,
    ),
  providers: (token: string, namespace: string) =>
    request<{ items: ProviderView[]; hiddenKinds: string[] }>(inNamespace(namespace, "/providers"), token),
};

export interface StartRunBody {
  pipeline: string;
  parameters: { name: string; value: string }[];
}

/** The build log's event stream (start, container, log, end), see src/server/builds/build-log.ts. */
export const buildLogPath = (namespace: string, name: string) =>
  inNamespace(namespace, `/imagebuilds/${encodeURIComponent(name)}/logs?follow=true`);

/** The changes of a namespace's `plural` after a list page's `resourceVersion` (no snapshot). */
export const changesPath = (plural: string, namespace: string, resourceVersion: string) =>
  `/watch/namespaces/${encodeURIComponent(namespace)}/${plural}?resourceVersion=${encodeURIComponent(resourceVersion)}`;

/** The event stream of a namespace's `plural` (or of one object, `name`). */
export const watchPath = (plural: string, namespace: string, name?: string) =>
  `/watch/namespaces/${encodeURIComponent(namespace)}/${plural}${name ? `?name=${encodeURIComponent(name)}` : ""}`;

export type PlatformEvent =
  | { event: "platform"; data: PlatformView }
  | { event: "phase"; data: { phase: string; version?: string; desiredVersion?: string; message?: string } }
  | { event: "component"; data: ComponentView & { removed?: boolean } }
  | { event: "absent"; data: { name: string; namespace: string } };

/**
 * Reads the server-sent events of `path` (under /api/v1). EventSource cannot send an Authorization
 * header, so this reads the stream with fetch and parses the frames itself. Resolves when the
 * stream ends; rejects with an ApiError when the server refuses it.
 */
export async function readEventStream(
  path: string,
  token: string,
  onEvent: (event: { event: string; data: unknown }) => void,
  signal: AbortSignal,
): Promise<void> {
  const response = await fetch(`/api/v1${path}`, {
    headers: { authorization: `Bearer ${token}`, accept: "text/event-stream" },
    signal,
  });
  if (!response.ok || !response.body) {
    const error = (await response.json().catch(() => undefined)) as { message?: string } | undefined;
    throw new ApiError(response.status, error?.message ?? `the server answered ${response.status}`);
  }
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return;
    buffer += value;
    let end = buffer.indexOf("\n\n");
    while (end >= 0) {
      const frame = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      end = buffer.indexOf("\n\n");
      const event = /^event: (.*)$/m.exec(frame)?.[1];
      const data = [...frame.matchAll(/^data: (.*)$/gm)].map((match) => match[1]).join("\n");
      if (event && data) onEvent({ event, data: JSON.parse(data) });
    }
  }
}

/** Follows GET /api/v1/platform/events. */
export function followPlatformEvents(
  token: string,
  onEvent: (event: PlatformEvent) => void,
  signal: AbortSignal,
): Promise<void> {
  return readEventStream("/platform/events", token, (event) => onEvent(event as PlatformEvent), signal);
}
