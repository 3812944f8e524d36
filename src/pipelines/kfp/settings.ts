/**
 * A `kfp` Provider's `spec.parameters`, checked (pure): where its API is, the KFP namespace in
 * multi-user mode, and where the bearer token comes from. Bad input is an error naming the field;
 * an endpoint the operator's outbound policy refuses too.
 */
import { Type } from "@sinclair/typebox";
import { ObjectName } from "../../apis/schema.ts";
import type { ProviderConfig } from "../backend.ts";
import { checkedUrl, type OutboundPolicy } from "../outbound-policy.ts";
import { checkedParameters, ProviderParametersError, parametersField } from "../provider-parameters.ts";

export type KfpAuth =
  | { type: "none" }
  /** A Secret in the Provider's namespace holding the token under `key`. */
  | { type: "secret"; name: string; key: string }
  /** A token the operator requests for this ServiceAccount (in the Provider's namespace) and audience. */
  | { type: "serviceAccountToken"; serviceAccount: string; audience: string; expirationSeconds: number };

export interface KfpSettings {
  /** `http(s)://host:port`, without a trailing slash. */
  endpoint: string;
  namespace?: string;
  auth: KfpAuth;
}

/** The longest token the operator asks for (a day): tokens are refreshed before they expire anyway. */
const maxTokenSeconds = 86_400;

const KfpParameters = Type.Object({
  endpoint: Type.String({ minLength: 1 }),
  /** KFP's namespace in multi-user mode (its profiles). */
  namespace: Type.Optional(ObjectName()),
  auth: Type.Optional(
    Type.Object({
      bearerTokenSecret: Type.Optional(
        Type.Object({
          name: ObjectName(),
          key: Type.String({ minLength: 1, pattern: "^[-._a-zA-Z0-9]+$", default: "token" }),
        }),
      ),
      serviceAccountToken: Type.Optional(
        Type.Object({
          serviceAccount: ObjectName(),
          audience: Type.String({ minLength: 1, default: "pipelines.kubeflow.org" }),
          expirationSeconds: Type.Integer({ minimum: 600, maximum: maxTokenSeconds, default: 3600 }),
        }),
      ),
    }),
  ),
});

/** The endpoint, checked against the operator's outbound policy (no fragment, no userinfo, no loopback…). */
function endpointOf(endpoint: string, outbound: OutboundPolicy): string {
  const field = parametersField("endpoint");
  let url: URL;
  try {
    url = checkedUrl(outbound, field, endpoint);
  } catch (error) {
    throw new ProviderParametersError((error as Error).message);
  }
  if (url.search)
    throw new ProviderParametersError(
      `${field}: no query in the URL (use spec.parameters.auth for credentials)`,
    );
  return endpoint.replace(/\/+$/, "");
}

/** The settings, or a ProviderParametersError naming the first bad field. */
export function kfpSettings(provider: ProviderConfig, outbound: OutboundPolicy): KfpSettings {
  const { endpoint, namespace, auth } = checkedParameters(KfpParameters, provider);
  const secret = auth?.bearerTokenSecret;
  const token = auth?.serviceAccountToken;
  if (auth && Boolean(secret) === Boolean(token))
    throw new ProviderParametersError(
      `${parametersField("auth")}: exactly one of bearerTokenSecret or serviceAccountToken`,
    );
  return {
    endpoint: endpointOf(endpoint, outbound),
    ...(namespace === undefined ? {} : { namespace }),
    auth: secret
      ? { type: "secret", name: secret.name, key: secret.key }
      : token
        ? {
            type: "serviceAccountToken",
            serviceAccount: token.serviceAccount,
            audience: token.audience,
            expirationSeconds: token.expirationSeconds,
          }
        : { type: "none" },
  };
}
