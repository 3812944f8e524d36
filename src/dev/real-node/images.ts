import { execFile, spawn } from "node:child_process";
import { join } from "node:path";
import { promisify } from "node:util";
import { defaultBuildahImage } from "../../builds/config.ts";
import { imageRepository } from "../../bundle/release.ts";
import { ownVersion } from "../../platform/catalog.ts";
import { packageRoot } from "../paths.ts";
import { pinnedVersions } from "../versions.ts";

const run = promisify(execFile);

/** The exact references of the local image set (what the catalog and the rendered Deployments name). */
export function localImageReferences() {
  return {
    pause: "registry.k8s.io/pause:3.10",
    coredns: `registry.k8s.io/coredns/coredns:${pinnedVersions().coredns}`,
    slipway: `${imageRepository}:${ownVersion}`,
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
