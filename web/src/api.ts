import type { ComponentView, PlatformView } from "../../src/server/platform/view.ts";

export type { ComponentView, PlatformView };

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

export const api = {
  platform: (token: string) => request<PlatformView>("/platform", token),
  versions: (token: string) => request<VersionsView>("/platform/versions", token),
  update: (token: string, version: string) =>
    request<UpdateAnswer>("/platform/update", token, { method: "POST", body: JSON.stringify({ version }) }),
};

export type PlatformEvent =
  | { event: "platform"; data: PlatformView }
  | { event: "phase"; data: { phase: string; version?: string; desiredVersion?: string; message?: string } }
  | { event: "component"; data: ComponentView & { removed?: boolean } }
  | { event: "absent"; data: { name: string; namespace: string } };

/**
 * Follows GET /api/v1/platform/events. EventSource cannot send an Authorization header, so this reads
 * the stream with fetch and parses the frames itself. Resolves when the stream ends; rejects with
 * an ApiError when the server refuses it.
 */
export async function followPlatformEvents(
  token: string,
  onEvent: (event: PlatformEvent) => void,
  signal: AbortSignal,
): Promise<void> {
  const response = await fetch("/api/v1/platform/events", {
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
      if (event && data) onEvent({ event, data: JSON.parse(data) } as PlatformEvent);
    }
  }
}
