/**
 * The Kaniko Job's `registry-login` step for a Google registry, run in Slipway's image: exchanges the
 * service-account key (mounted into this step alone) for an OAuth2 access token and writes the docker
 * config the `push` step pushes with — user `oauth2accesstoken`, the token as password, the way
 * Artifact Registry and Container Registry take it
 * (https://cloud.google.com/artifact-registry/docs/docker/authentication#token). So the key never
 * reaches a step that runs the Dockerfile, and `push` holds only a token that expires within the hour.
 * `registry-login --registry=<host> <key file> <docker config file>`; exit 1 with the message on
 * stderr (the termination message) when the key is refused or unreadable.
 */
import { readFile, writeFile } from "node:fs/promises";
import { parseArgs } from "node:util";
import { type BasicCredentials, dockerConfigFor, googleCredentials } from "./registry/credentials.ts";

/** One login as the arguments describe it; `exchange` turns the key into credentials. Returns the exit code. */
export async function registryLogin(
  argv: string[],
  exchange: (keyJson: string) => () => Promise<BasicCredentials> = googleCredentials,
): Promise<number> {
  try {
    const { values, positionals } = parseArgs({
      args: argv,
      options: { registry: { type: "string" } },
      allowPositionals: true,
    });
    const [keyFile, configFile] = positionals;
    if (!values.registry || !keyFile || !configFile)
      throw new Error("usage: registry-login --registry=<host> <key file> <docker config file>");
    const credentials = await exchange(await readFile(keyFile, "utf8"))();
    await writeFile(configFile, dockerConfigFor(values.registry, credentials), { mode: 0o600 });
    process.stdout.write(`logged in to ${values.registry} as ${credentials.username}\n`);
    return 0;
  } catch (error) {
    process.stderr.write(`registry-login: ${error instanceof Error ? error.message : String(error)}\n`);
    return 1;
  }
}

if (import.meta.main) process.exitCode = await registryLogin(process.argv.slice(2));
