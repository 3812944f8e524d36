import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { parse } from "yaml";
import { packageRoot } from "../../dev/paths.ts";

export const argoVersion = "v4.1.2";

/** Argo Workflows' CRDs with their full schemas, from the shared data next to the repository. */
export function argoCrdDirectory(): string {
  return join(packageRoot, "..", "shared", "data", `argo-workflows-${argoVersion}`, "crds-full");
}

/** The CRDs of the kinds the argo backend writes. */
export async function argoCrds(): Promise<Record<string, unknown>[]> {
  const files = ["workflowtemplates", "workflows", "cronworkflows"].map((plural) =>
    join(argoCrdDirectory(), `argoproj.io_${plural}.yaml`),
  );
  return Promise.all(
    files.map(async (file) => parse(await readFile(file, "utf8")) as Record<string, unknown>),
  );
}
