/**
 * The real node's containerd root (its images, their unpacked layers and its metadata) lives in the
 * machine's cache, not in the dev directory: the machine runs one real node at a time (claim.ts), and
 * importing the local image set into an empty root took 40 s of every `up` (about 1.9 GB of archives,
 * written once as content and once unpacked). An `up` imports only the archives the store lacks and
 * removes the images that are no longer in the set, so the store stays the size of one set.
 */
import { execFile } from "node:child_process";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";
import { cacheDir } from "../paths.ts";
import { type ImageArchive, importImages } from "./images.ts";

const run = promisify(execFile);

/** containerd's root for the machine's real node, whichever dev directory holds it. */
export function imageStoreRoot(): string {
  return join(cacheDir(), "real-node", "containerd-root");
}

/** Inside the root, so a root removed by hand takes its record with it. */
const recordPath = (root: string) => join(root, "slipway-imported.json");

/** Each reference the store holds, by the archive it was imported from (archives are named by content hash). */
export type ImportRecord = Record<string, string>;

export async function readImportRecord(root = imageStoreRoot()): Promise<ImportRecord> {
  const text = await readFile(recordPath(root), "utf8").catch(() => "{}");
  try {
    return JSON.parse(text) as ImportRecord;
  } catch {
    return {}; // a record cut short: importing everything again is safe
  }
}

/** An image record of containerd: its name and the digest of the manifest (or index) it points at. */
export interface StoredImage {
  name: string;
  digest: string;
}

/** Parses `ctr images ls`: a header, then one image per line (REF TYPE DIGEST SIZE …). Pure. */
export function parseImageList(stdout: string): StoredImage[] {
  return stdout
    .split("\n")
    .slice(1)
    .map((line) => line.trim().split(/\s+/))
    .filter(([name, , digest]) => name && digest?.startsWith("sha256:"))
    .map(([name = "", , digest = ""]) => ({ name, digest }));
}

/**
 * The archives to import: those whose reference the store does not hold, or holds from another
 * archive (the image was rebuilt). Pure.
 */
export function archivesToImport(
  wanted: readonly ImageArchive[],
  record: ImportRecord,
  stored: readonly StoredImage[],
): ImageArchive[] {
  const names = new Set(stored.map((image) => image.name));
  return wanted.filter(({ reference, archive }) => !names.has(reference) || record[reference] !== archive);
}

/**
 * The image records to remove: every one that points at no wanted reference's manifest. That takes
 * the CRI's own names of an image (`sha256:<id>`, `repo@sha256:…`) with it, and whatever the pods of
 * earlier runs pulled (built model images), so containerd's collector frees their layers. Pure.
 */
export function staleImages(stored: readonly StoredImage[], wanted: readonly string[]): string[] {
  const kept = new Set(stored.filter((image) => wanted.includes(image.name)).map((image) => image.digest));
  return stored.filter((image) => !kept.has(image.digest)).map((image) => image.name);
}

/**
 * Imports into the containerd at `socket` (namespace k8s.io, the CRI's) the `archives` it lacks; with
 * `prune` (a node coming up, no pod running yet) removes every other image.
 */
export async function syncImageStore(
  socket: string,
  archives: readonly ImageArchive[],
  options: { log: (line: string) => void; prune: boolean },
  root = imageStoreRoot(),
): Promise<void> {
  const ctr = (...args: string[]) =>
    run("ctr", ["--address", socket, "-n", "k8s.io", ...args], { maxBuffer: 16 << 20 });
  const list = async () => parseImageList((await ctr("images", "ls")).stdout);
  const missing = archivesToImport(archives, await readImportRecord(root), await list());
  if (missing.length) {
    options.log(`importing ${missing.map((a) => a.reference).join(", ")} into the real node's containerd`);
    await importImages(socket, missing);
    const record: ImportRecord = Object.fromEntries(archives.map((a) => [a.reference, a.archive]));
    await writeFile(recordPath(root), JSON.stringify(record, null, 2));
  }
  if (!options.prune) return;
  const stale = staleImages(
    await list(),
    archives.map((a) => a.reference),
  );
  if (stale.length) await ctr("images", "rm", ...stale);
}
