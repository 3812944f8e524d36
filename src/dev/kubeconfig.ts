import { readFile, writeFile } from "node:fs/promises";
import { KubeConfig } from "@kubernetes/client-node";
import { stringify } from "yaml";
import { serviceAccountType } from "../kube/core-types.ts";
import { resourcePath } from "../kube/keys.ts";
import { withDevClient } from "./dev-client.ts";

export interface KubeconfigInput {
  server: string;
  caCertFile: string;
  clientCertFile: string;
  clientKeyFile: string;
  name: string;
}

/** Writes a self-contained kubeconfig (certificates embedded) usable by kubectl, client-node and the control plane. */
export async function writeKubeconfig(path: string, input: KubeconfigInput): Promise<void> {
  const b64 = async (file: string) => (await readFile(file)).toString("base64");
  const config = {
    apiVersion: "v1",
    kind: "Config",
    clusters: [
      {
        name: input.name,
        cluster: { server: input.server, "certificate-authority-data": await b64(input.caCertFile) },
      },
    ],
    users: [
      {
        name: `${input.name}-admin`,
        user: {
          "client-certificate-data": await b64(input.clientCertFile),
          "client-key-data": await b64(input.clientKeyFile),
        },
      },
    ],
    contexts: [{ name: input.name, context: { cluster: input.name, user: `${input.name}-admin` } }],
    "current-context": input.name,
  };
  await writeFile(path, stringify(config), { mode: 0o600 });
}

/** A token of ServiceAccount `namespace/name` for the API server's own audience, `seconds` long (a TokenRequest). */
export async function mintServiceAccountToken(
  admin: KubeConfig,
  account: { namespace: string; name: string },
  seconds: number,
): Promise<string> {
  const minted = await withDevClient(admin, ({ rest }) =>
    rest.request<{ status?: { token?: string } }>(
      "POST",
      resourcePath(serviceAccountType, { ...account, subresource: "token" }),
      {
        body: {
          apiVersion: "authentication.k8s.io/v1",
          kind: "TokenRequest",
          spec: { expirationSeconds: seconds },
        },
      },
    ),
  );
  const token = minted.status?.token;
  if (!token)
    throw new Error(`the API server minted no token for ServiceAccount ${account.namespace}/${account.name}`);
  return token;
}

/**
 * Mints a token of ServiceAccount `namespace/name` (TokenRequest, `seconds` long) and writes a
 * kubeconfig (mode 0600) for the admin's cluster that authenticates with it alone: a process run
 * with it has exactly that account's rights.
 */
export async function writeServiceAccountKubeconfig(
  admin: KubeConfig,
  account: { namespace: string; name: string },
  seconds: number,
  path: string,
): Promise<void> {
  const token = await mintServiceAccountToken(admin, account, seconds);
  const cluster = admin.getCurrentCluster();
  if (!cluster) throw new Error("the admin kubeconfig has no current cluster");
  const config = new KubeConfig();
  const user = `${account.namespace}-${account.name}`;
  config.loadFromOptions({
    clusters: [cluster],
    users: [{ name: user, token }],
    contexts: [{ name: user, cluster: cluster.name, user }],
    currentContext: user,
  });
  await writeFile(path, config.exportConfig(), { mode: 0o600 });
}
