/**
 * JSON over HTTP to one KFP API server (REST v2beta1), with the Provider's bearer token. An error
 * names the endpoint, the call and KFP's message — the token is never part of it.
 */
export class KfpError extends Error {
  override name = "KfpError";
  readonly status: number | undefined;
  constructor(message: string, status?: number) {
    super(message);
    this.status = status;
  }
}

export const isKfpNotFound = (error: unknown) => error instanceof KfpError && error.status === 404;
export const isKfpConflict = (error: unknown) => error instanceof KfpError && error.status === 409;

export interface KfpRequest {
  query?: Record<string, string | undefined>;
  body?: unknown;
}

const timeoutMs = 30_000;

function causeOf(error: unknown): string {
  const cause = (error as { cause?: { code?: string; message?: string } })?.cause;
  return cause?.code ?? cause?.message ?? (error instanceof Error ? error.message : String(error));
}

/** KFP's error bodies are google.rpc.Status (`message`) or grpc-gateway's (`error`). */
function messageOf(text: string): string {
  try {
    const body = JSON.parse(text) as { message?: string; error?: string };
    return body.message ?? body.error ?? text;
  } catch {
    return text;
  }
}

/** The bearer token of the calls; `forget` is told when KFP refused it (401). */
export interface KfpToken {
  get(): Promise<string | undefined>;
  forget(): void;
}

export class KfpHttp {
  readonly endpoint: string;
  readonly #token: KfpToken;

  constructor(endpoint: string, token: KfpToken) {
    this.endpoint = endpoint;
    this.#token = token;
  }

  async request<T>(method: string, path: string, request: KfpRequest = {}): Promise<T> {
    const token = await this.#token.get();
    const url = new URL(`${this.endpoint}${path}`);
    for (const [name, value] of Object.entries(request.query ?? {}))
      if (value !== undefined) url.searchParams.set(name, value);
    const call = `${method} ${path}`;
    const redact = (text: string) => (token ? text.split(token).join("<token>") : text);
    let response: Response;
    try {
      response = await fetch(url, {
        method,
        headers: {
          accept: "application/json",
          ...(request.body === undefined ? {} : { "content-type": "application/json" }),
          ...(token ? { authorization: `Bearer ${token}` } : {}),
        },
        ...(request.body === undefined ? {} : { body: JSON.stringify(request.body) }),
        signal: AbortSignal.timeout(timeoutMs),
      });
    } catch (error) {
      throw new KfpError(redact(`KFP at ${this.endpoint}: ${call}: ${causeOf(error)}`));
    }
    const text = await response.text();
    if (!response.ok) {
      if (response.status === 401) this.#token.forget();
      const message = messageOf(text).slice(0, 500);
      throw new KfpError(
        redact(`KFP at ${this.endpoint}: ${call} → ${response.status} ${message}`),
        response.status,
      );
    }
    return (text ? JSON.parse(text) : {}) as T;
  }
}
