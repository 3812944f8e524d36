/**
 * Builds a Go peer of `bench/peers/<name>/` once per content of its sources: the binary is cached in
 * `$SLIPWAY_CACHE/bench-peers/<name>-<hash>/peer`, the hash taken over go.mod, go.sum and every .go file,
 * so a bench run after a change rebuilds and every other run starts at once.
 */
import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { access, mkdir, readdir, readFile, rename } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { cacheDir } from "../../src/dev/paths.ts";

const run = promisify(execFile);

async function sourcesHash(dir: string): Promise<string> {
  const files = (await readdir(dir)).filter((file) => /^go\.(mod|sum)$|\.go$/.test(file)).sort();
  const hash = createHash("sha256");
  for (const file of files)
    hash
      .update(file)
      .update("\0")
      .update(await readFile(join(dir, file)))
      .update("\0");
  return hash.digest("hex").slice(0, 16);
}

/** The path of the peer's binary, built first if this content of its sources has not been built. */
export async function goPeer(name: string): Promise<string> {
  const source = fileURLToPath(new URL(`./${name}/`, import.meta.url));
  const out = join(cacheDir(), "bench-peers", `${name}-${await sourcesHash(source)}`);
  const binary = join(out, "peer");
  if (
    await access(binary).then(
      () => true,
      () => false,
    )
  )
    return binary;
  await mkdir(out, { recursive: true });
  process.stderr.write(`[bench] building the ${name} peer (Go) into ${out}\n`);
  await run("go", ["build", "-trimpath", "-o", `${binary}.partial`, "."], {
    cwd: source,
    env: { ...process.env, GOFLAGS: "-mod=mod", GOTOOLCHAIN: "local", CGO_ENABLED: "0" },
    maxBuffer: 16 * 2 ** 20,
  });
  await rename(`${binary}.partial`, binary);
  return binary;
}
