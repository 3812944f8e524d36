import { readFile, writeFile } from "node:fs/promises";
import { stringify } from "yaml";

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
