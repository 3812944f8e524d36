/**
 * The bearer token of a `kfp` Provider's calls: read from a Secret in the Provider's namespace, or
 * requested for a ServiceAccount there with an audience (a TokenRequest: the token a projected
 * ServiceAccount token volume would hold). The token goes into the Authorization header only —
 * never into a status, an Event, a log line or an error message. It is read again at most once per
 * `tokenReuseMs` per Provider configuration, and at once after KFP refused it (a rotated Secret).
 */
import { secretType, serviceAccountType } from "../../kube/core-types.ts";
import type { Client, KubeObject, ObjectKey, Permission } from "../../kube/types.ts";
import type { KfpAuth } from "./settings.ts";

/** What reading the credentials needs (the controllers' RBAC). */
export const credentialPermissions: Permission[] = [
  { type: secretType, verbs: ["get"] },
  { type: serviceAccountType, verbs: ["create"], subresource: "token" },
];

export type Secret = KubeObject & { data?: Record<string, string> };

/**
 * Shorter values are refused: a bearer token is never that short, and errors are redacted of the
 * token by replacing it, which for a value of a letter or two would mangle every message.
 */
export const minimumTokenLength = 8;

/** The bearer token `secret` holds for `auth` (pure); errors name the field, the object and the rule. */
export function tokenOfSecret(
  secret: Secret | undefined,
  namespace: string,
  auth: Extract<KfpAuth, { type: "secret" }>,
): string {
  const field = "spec.parameters.auth.bearerTokenSecret";
  if (!secret) throw new Error(`${field}: Secret ${namespace}/${auth.name} does not exist`);
  const value = secret.data?.[auth.key];
  if (!value) throw new Error(`${field}: Secret ${namespace}/${auth.name} has no key ${auth.key}`);
  const token = Buffer.from(value, "base64").toString("utf8").trim();
  if (token.length < minimumTokenLength)
    throw new Error(
      `${field}: key ${auth.key} of Secret ${namespace}/${auth.name} is ${token.length} character${token.length === 1 ? "" : "s"} long, shorter than ${minimumTokenLength}: not a bearer token`,
    );
  return token;
}

async function secretToken(client: Client, namespace: string, auth: Extract<KfpAuth, { type: "secret" }>) {
  return tokenOfSecret(await client.get<Secret>(secretType, { namespace, name: auth.name }), namespace, auth);
}

async function serviceAccountToken(
  client: Client,
  namespace: string,
  auth: Extract<KfpAuth, { type: "serviceAccountToken" }>,
) {
  const request = {
    apiVersion: "authentication.k8s.io/v1",
    kind: "TokenRequest",
    spec: { audiences: [auth.audience], expirationSeconds: auth.expirationSeconds },
  };
  const key: ObjectKey = { namespace, name: auth.serviceAccount };
  try {
    const answer = await client.createSubresource<{ status?: { token?: string } }>(
      serviceAccountType,
      key,
      "token",
      request,
    );
    if (!answer.status?.token) throw new Error("the TokenRequest returned no token");
    return answer.status.token;
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    throw new Error(
      `spec.parameters.auth.serviceAccountToken: no token for ServiceAccount ${namespace}/${auth.serviceAccount}: ${why}`,
    );
  }
}

/** The token for `auth`, undefined without auth; errors name the field and the object, not the token. */
export function bearerToken(client: Client, namespace: string, auth: KfpAuth): Promise<string | undefined> {
  if (auth.type === "secret") return secretToken(client, namespace, auth);
  if (auth.type === "serviceAccountToken") return serviceAccountToken(client, namespace, auth);
  return Promise.resolve(undefined);
}

/** How long a token read is used before it is read again (a Secret's rotation is seen within this). */
export const tokenReuseMs = 60_000;

export interface ReusedToken {
  get(): Promise<string | undefined>;
  /** KFP refused the token (401): the next get reads it again. */
  forget(): void;
}

/** `read` at most once per `ttlMs`; a read that failed is not kept (the next get reads again). */
export function reusedToken(
  read: () => Promise<string | undefined>,
  ttlMs = tokenReuseMs,
  now: () => number = Date.now,
): ReusedToken {
  let held: { token: Promise<string | undefined>; at: number } | undefined;
  return {
    get() {
      if (!held || now() - held.at >= ttlMs) {
        const entry = { token: read(), at: now() };
        held = entry;
        entry.token.catch(() => {
          if (held === entry) held = undefined;
        });
      }
      return held.token;
    },
    forget() {
      held = undefined;
    },
  };
}
