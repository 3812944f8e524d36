import { execFile, spawn } from "node:child_process";
import { join } from "node:path";
import { promisify } from "node:util";
import { defaultBuildahImage } from "../../builds/config.ts";
import { imageRepository } from "../../bundle/release.ts";
import { compareVersions, ownVersion, type Release, releases } from "../../platform/catalog.ts";
import { workflowImages } from "../../platform/workflow-images.ts";
import { packageRoot } from "../paths.ts";
import { pinnedVersions } from "../versions.ts";

const run = promisify(execFile);

/** The newest release the catalog knows: the one whose every image the real node holds. */
export function newestRelease(): Release {
  const newest = [...releases].sort((a, b) => compareVersions(a.version, b.version)).at(-1);
  if (!newest) throw new Error("src/platform/catalog.ts: no release");
  return newest;
}

/**
 * The exact references of the local image set, by the name tools/images/build.sh builds each under:
 * the node's own (pause, CoreDNS), Slipway's, and every image of the newest release, its workflow
 * engine's executor and pipeline step image included.
 */
export function localImageReferences() {
  const release = newestRelease();
  const workflow = workflowImages(release.version);
  if (!workflow)
    throw new Error(`src/platform/workflow-images.ts: no executor and step images for ${release.version}`);
  return {
    pause: "registry.k8s.io/pause:3.10",
    coredns: `registry.k8s.io/coredns/coredns:${pinnedVersions().coredns}`,
    slipway: `${imageRepository}:${ownVersion}`,
    postgres: release.images.postgres,
    "object-store": release.images["object-store"],
    registry: release.images.registry,
    mlflow: release.images.mlflow,
    "workflow-controller": release.images["workflow-engine"],
    argoexec: workflow.executor,
    python: workflow.step,
    buildah: defaultBuildahImage,
  };
}

export interface ImageArchive {
  reference: string;
  archive: string;
}

/** Parses build.sh's output: one "<reference> <archive>" per line. */
export function parseImageArchives(stdout: string): ImageArchive[] {
  return stdout
    .split("\n")
    .filter((line) => line.trim())
    .map((line) => {
      const [reference, archive, ...rest] = line.trim().split(/\s+/);
      if (!reference || !archive || rest.length)
        throw new Error(`tools/images/build.sh: unexpected output line "${line}"`);
      return { reference, archive };
    });
}

/** Builds whatever image is not cached yet (tools/images/build.sh; a warm run builds nothing) and returns the archives. */
export async function ensureLocalImages(log: (line: string) => void = () => {}): Promise<ImageArchive[]> {
  const refs = localImageReferences();
  const args = Object.entries(refs).map(([name, reference]) => `${name}=${reference}`);
  const stdout = await new Promise<string>((resolve, reject) => {
    const child = spawn("bash", [join(packageRoot, "tools/images/build.sh"), ...args], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    child.stdout.on("data", (chunk) => {
      out += chunk;
    });
    child.stderr.on("data", (chunk: Buffer) => {
      for (const line of chunk.toString().split("\n")) if (line.trim()) log(line);
    });
    child.on("error", reject);
    child.on("exit", (code) =>
      code === 0 ? resolve(out) : reject(new Error(`tools/images/build.sh exited with code ${code}`)),
    );
  });
  return parseImageArchives(stdout);
}

/** Imports the archives into the node's containerd (namespace k8s.io, the CRI's), unpacked for its snapshotter. */
export async function importImages(socket: string, archives: ImageArchive[]): Promise<void> {
  for (const { archive } of archives)
    await run(
      "ctr",
      ["--address", socket, "-n", "k8s.io", "images", "import", "--snapshotter", "overlayfs", archive],
      {
        maxBuffer: 16 << 20,
      },
    );
}
