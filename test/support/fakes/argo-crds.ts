/**
 * Argo Workflows' own CRDs, which the tests validate Slipway's Argo objects against. They come from
 * Argo's published Go module: tools/setup/40-argo-crds.sh (part of `make test`) copies them into a
 * version-keyed cache; nothing of Argo's is in this repository.
 */
import { existsSync, readFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { parse } from "yaml";
import { cacheDir, packageRoot } from "../../../src/dev/paths.ts";

const envFile = "tools/setup/argo-workflows.env";

/** The Argo Workflows version of tools/setup/argo-workflows.env. */
export const argoVersion = (() => {
  const match = /^ARGO_WORKFLOWS_VERSION=(\S+)$/m.exec(readFileSync(join(packageRoot, envFile), "utf8"));
  if (!match?.[1]) throw new Error(`${envFile}: ARGO_WORKFLOWS_VERSION is not set`);
  return match[1];
})();

/** Where tools/setup/40-argo-crds.sh put the CRDs: `full` (with Argo's OpenAPI schemas) or `minimal`. */
export function argoCrdDirectory(variant: "full" | "minimal"): string {
  return join(cacheDir(), `argo-workflows-${argoVersion}`, "crds", variant);
}

/** The plural names of the kinds the argo backend writes. */
export const writtenArgoKinds = ["workflowtemplates", "workflows", "cronworkflows"];

/** Argo's CRDs of `plurals`, with full schemas by default. */
export async function argoCrds(
  plurals: string[] = writtenArgoKinds,
  variant: "full" | "minimal" = "full",
): Promise<Record<string, unknown>[]> {
  const directory = argoCrdDirectory(variant);
  if (!existsSync(directory)) {
    throw new Error(`${directory} is missing: run tools/setup/40-argo-crds.sh (make test does)`);
  }
  return Promise.all(
    plurals.map(
      async (plural) =>
        parse(await readFile(join(directory, `argoproj.io_${plural}.yaml`), "utf8")) as Record<
          string,
          unknown
        >,
    ),
  );
}
