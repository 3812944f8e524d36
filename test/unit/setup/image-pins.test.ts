/**
 * Every image of the real node's local set (the catalog's newest release, its workflow images, the
 * buildah Job's image, the node's own) is tagged with the version of the pinned source tools/images/
 * builds it from: a Debian package's upstream version in tools/images/debian.lock, mlflow's pin in its
 * requirements.txt, Argo's and MinIO's Go module versions, CoreDNS's in versions.env; Slipway's image is
 * its own version. The lock itself must be made from the pins of tools/setup/debian-packages.txt as they
 * are. Pure: reads the repository's files (the shell rules are tools/images/debian.sh's own).
 */
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { localImageReferences } from "../../../src/dev/real-node/images.ts";
import { ownVersion } from "../../../src/platform/catalog.ts";

const root = join(import.meta.dirname, "../../..");

/** Runs a bash program with tools/setup/debian-version.sh and tools/images/debian.sh sourced; $1… are args. */
function shell(program: string, ...args: string[]): string {
  const prelude =
    'root=$0; cache=/nonexistent; fail() { echo "$*" >&2; exit 1; }; source "$root/tools/setup/debian-version.sh"; source "$root/tools/images/debian.sh"; ';
  return execFileSync("bash", ["-c", prelude + program, root, ...args], {
    encoding: "utf8",
    stdio: ["ignore", "pipe", "pipe"],
  }).trim();
}

/** The upstream part of a Debian package's version in tools/images/debian.lock: 15.20-0+deb12u1 → 15.20. */
const debianUpstream = (name: string) =>
  shell(
    'v=$(lock_version "$1"); [ -n "$v" ] || fail "$1 is not in tools/images/debian.lock"; upstream_of "$v"',
    name,
  );

function variable(file: string, name: string): string {
  const value = readFileSync(join(root, file), "utf8").match(new RegExp(`^${name}=(\\S+)`, "m"))?.[1];
  if (!value) throw new Error(`${file} sets no ${name}`);
  return value;
}

type Images = ReturnType<typeof localImageReferences>;
interface Expected {
  tag: string;
  source: string;
}

/** The tag each image must have, from the pinned source it is built from (pause: the project's own program, untagged by any source). */
function expectedTags(references: Images): Record<keyof Images, Expected | "own"> {
  const argo = variable("tools/setup/argo-workflows.env", "ARGO_WORKFLOWS_VERSION");
  const minio = variable("tools/setup/20-builds-servers.sh", "MINIO_VERSION");
  const requirements = readFileSync(join(root, "tools/images/mlflow/requirements.txt"), "utf8");
  const mlflow = requirements.match(/^mlflow==(\S+)/m)?.[1] ?? "no mlflow== line";
  const postgresMajor = (references.postgres.split(":").at(-1) ?? "").split(".")[0];
  const debian = (name: string, suffix = ""): Expected => ({
    tag: debianUpstream(name) + suffix,
    source: `Debian ${name} in tools/images/debian.lock`,
  });
  return {
    pause: "own",
    coredns: {
      tag: variable("tools/kube/versions.env", "COREDNS_VERSION"),
      source: "tools/kube/versions.env",
    },
    slipway: { tag: ownVersion, source: "package.json" },
    postgres: debian(`postgresql-${postgresMajor}`),
    "object-store": {
      tag: shell('source "$root/tools/images/minio/image.sh"; minio_release_tag "$1"', minio),
      source: `the Go module github.com/minio/minio@${minio}`,
    },
    registry: debian("docker-registry"),
    mlflow: { tag: mlflow, source: "tools/images/mlflow/requirements.txt" },
    "workflow-controller": { tag: argo, source: "tools/setup/argo-workflows.env" },
    argoexec: { tag: argo, source: "tools/setup/argo-workflows.env" },
    python: debian("python3.11", "-slim"),
    buildah: debian("buildah"),
  };
}

/** One line per image whose tag is not its source's version. */
function mismatches(references: Images): string[] {
  const expected = expectedTags(references);
  return Object.entries(references).flatMap(([name, reference]) => {
    const rule = expected[name as keyof Images];
    const tag = reference.split(":").at(-1);
    return rule === "own" || rule.tag === tag
      ? []
      : [`${name}: ${reference} must be tagged ${rule.tag} (${rule.source})`];
  });
}

describe("the local image set's tags", () => {
  it("are the versions of the pinned sources the images are built from", () => {
    expect(mismatches(localImageReferences())).toEqual([]);
  });

  it("a tag that is not its source's version is reported, naming the image and the source", () => {
    const references = localImageReferences();
    const wrong = {
      ...references,
      postgres: "docker.io/library/postgres:15.18",
      mlflow: "ghcr.io/x/mlflow:0.1",
    };
    expect(mismatches(wrong)).toEqual([
      expect.stringMatching(
        /^postgres: docker.io\/library\/postgres:15.18 must be tagged .* \(Debian postgresql-15 /,
      ),
      expect.stringMatching(/^mlflow: .* \(tools\/images\/mlflow\/requirements.txt\)$/),
    ]);
  });

  it("a catalog image whose source is not locked fails instead of passing", () => {
    const references = { ...localImageReferences(), postgres: "docker.io/library/postgres:16.4" };
    expect(() => mismatches(references)).toThrow(/postgresql-16 is not in tools\/images\/debian.lock/);
  });
});

describe("tools/images/debian.lock", () => {
  const images = shell("image_names").split("\n");

  it("has an image line for every image tools/setup/debian-packages.txt fills", () => {
    expect(images).toEqual(
      expect.arrayContaining(["postgres", "registry", "python", "mlflow", "buildah", "argo"]),
    );
  });

  it.each(images)(
    "was made from the lines of %s as they are now (else: run tools/images/debian-lock.sh)",
    (image) => {
      expect(shell('lock_current "$1" 2>&1 && echo current || true', image)).toBe("current");
      expect(shell('lock_lines "$1" | wc -l', image)).not.toBe("0");
    },
  );

  it("holds each pinned package at a version of its pin", () => {
    const pins = shell('for i in $(image_names); do image_spec "$i"; done')
      .split(/\s+/)
      .filter((word) => word.includes("=") && !word.startsWith("-"));
    expect(pins.length).toBeGreaterThan(0);
    for (const pin of pins) {
      const [name = "", wanted = ""] = pin.split("=");
      const locked = shell('lock_version "$1"', name);
      const matches =
        wanted === "newest" ||
        (wanted.includes("-") ? locked === wanted : shell('upstream_of "$1"', locked) === wanted);
      expect(matches, `${name} is ${locked} in the lock, pinned ${wanted}`).toBe(true);
    }
  });
});
