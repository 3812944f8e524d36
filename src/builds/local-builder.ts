/**
 * The `local` backend: builds on the operator's own machine with buildah (OCI isolation with runc
 * and no network for RUN, vfs storage; no container runtime service needed) the same steps a
 * Kaniko Job takes: fetch the artifact from the blob store, build the Dockerfile, push with the
 * configured credentials. One run per namespace and image reference, shared by that namespace's
 * builds of it; runs are tracked in memory (an operator restart starts them again, which is safe:
 * the push is idempotent). Only in dev mode: it runs tenants' input on the operator's host.
 */
import { spawn } from "node:child_process";
import { chmod, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve, sep } from "node:path";
import { BoundedMap } from "../lib/bounded-map.ts";
import { ArtifactLimitError, type ArtifactLimits } from "./artifact-limits.ts";
import type { BlobUri } from "./blob-uri.ts";
import type { JobObservation } from "./decide.ts";
import { redactorOf } from "./redaction.ts";
import { type BasicCredentials, dockerConfigFor } from "./registry/credentials.ts";
import type { BlobStore } from "./storage/blob-store.ts";
import { downloadArtifact } from "./storage/download.ts";

export interface LocalBuildRequest {
  reference: string;
  registry: string;
  insecure: boolean;
  artifact: BlobUri;
  store: BlobStore;
  dockerfile: string;
  /** Values already resolved (secret ones too): `--build-arg NAME=VALUE`, never buildah's environment. */
  buildArgs: { name: string; value: string; secret: boolean }[];
  credentials: BasicCredentials | undefined;
  timeoutSeconds: number;
  /** artifacts.maxBytes / maxObjects: the download stops there and the run fails ArtifactTooLarge. */
  limits: ArtifactLimits;
}

interface Run {
  state: JobObservation;
  controller: AbortController;
  log: string[];
}

const logLimit = 200;

/** Downloads the build context into `dir`; an empty prefix is an error. */
async function fetchContext(request: LocalBuildRequest, dir: string, note: (line: string) => void) {
  const { scheme, bucket, key } = request.artifact;
  const count = await downloadArtifact(request.store, request.artifact, dir, request.limits);
  note(`fetched ${count} objects from ${scheme}://${bucket}/${key}`);
  if (count === 0) throw new Error(`no objects under ${scheme}://${bucket}/${key}`);
  return dir;
}

/** How a run ended badly: its timeout, an artifact over the limits, or anything else. */
function failure(run: Run, error: unknown): JobObservation {
  const aborted = run.controller.signal.aborted && run.controller.signal.reason === "timeout";
  const tooLarge = error instanceof ArtifactLimitError;
  return {
    state: "failed",
    attempts: 1,
    reason: aborted ? "DeadlineExceeded" : tooLarge ? "ArtifactTooLarge" : "Error",
    message: error instanceof Error ? error.message : String(error),
  };
}

/** Debian's buildah, by absolute path: nothing of a build can choose which binary runs. */
export const buildahPath = "/usr/bin/buildah";

/**
 * buildah's whole environment: fixed, nothing of the build's (a build argument named PATH,
 * LD_PRELOAD or HTTPS_PROXY would otherwise steer the operator's host) and of the operator's only
 * its home and runtime directory.
 */
export function buildahEnvironment(operator: NodeJS.ProcessEnv = process.env): Record<string, string> {
  // of the operator's own: where a rootless buildah keeps its configuration and runtime files
  const own = Object.fromEntries(
    ["HOME", "USER", "XDG_RUNTIME_DIR"].flatMap((name) => (operator[name] ? [[name, operator[name]]] : [])),
  );
  return { PATH: "/usr/sbin:/usr/bin:/sbin:/bin", TMPDIR: tmpdir(), LANG: "C.UTF-8", ...own };
}

/**
 * `buildah bud`'s arguments: OCI isolation (runc), no network for RUN, the build arguments as
 * `--build-arg NAME=VALUE`, the Dockerfile inside the context (a path leaving it is refused).
 */
export function budArgs(
  request: Pick<LocalBuildRequest, "dockerfile" | "buildArgs" | "reference">,
  context: string,
): string[] {
  const dockerfile = resolve(context, request.dockerfile.replace(/^\/+/, ""));
  if (!dockerfile.startsWith(`${resolve(context)}${sep}`))
    throw new Error(`spec.dockerfile ${request.dockerfile}: must be a path inside the build context`);
  return [
    "bud",
    // chroot isolation cannot cut RUN's network; runc (a project dependency) can
    "--isolation",
    "oci",
    "--network",
    "none",
    "--quiet",
    "-f",
    dockerfile,
    "-t",
    request.reference,
    ...request.buildArgs.flatMap((a) => ["--build-arg", `${a.name}=${a.value}`]),
    context,
  ];
}

/** Finished runs remembered (their outcome is read once by the builds that follow them); the oldest go first. */
const finishedRunMemory = 256;

export class LocalBuilder {
  readonly #root: string;
  readonly #running = new Map<string, Run>();
  readonly #finished: BoundedMap<string, Run>;

  constructor(storageRoot = join(tmpdir(), "slipway-buildah"), finishedRuns = finishedRunMemory) {
    this.#root = storageRoot;
    this.#finished = new BoundedMap(finishedRuns);
  }

  #run(key: string): Run | undefined {
    return this.#running.get(key) ?? this.#finished.get(key);
  }

  /** `key`: what the run is shared by (the backend's localBuildKey: namespace and image reference). */
  observe(key: string): JobObservation {
    return this.#run(key)?.state ?? { state: "absent" };
  }

  running(): number {
    return this.#running.size;
  }

  /** The keys of the runs running now. */
  runningKeys(): string[] {
    return [...this.#running.keys()];
  }

  logs(key: string): string {
    return (this.#run(key)?.log ?? []).join("\n");
  }

  /** Starts the run of `key` unless one is already running or finished. */
  start(key: string, prepare: () => Promise<LocalBuildRequest>): void {
    if (this.#run(key)) return;
    const run: Run = { state: { state: "running", attempts: 1 }, controller: new AbortController(), log: [] };
    this.#running.set(key, run);
    void this.#execute(run, prepare)
      .then(
        () => {
          run.state = { state: "succeeded", attempts: 1, finishedAt: new Date().toISOString() };
        },
        (error: unknown) => {
          run.state = failure(run, error);
        },
      )
      .finally(() => {
        // a run stopped meanwhile is forgotten, not remembered as finished
        if (this.#running.get(key) !== run) return;
        this.#running.delete(key);
        this.#finished.set(key, run);
      });
  }

  /** Stops and forgets the run of `key` (a timeout, or a finished run to be started afresh). */
  stop(key: string): void {
    this.#running.get(key)?.controller.abort("stopped");
    this.#running.delete(key);
    this.#finished.delete(key);
  }

  async #execute(run: Run, prepare: () => Promise<LocalBuildRequest>): Promise<void> {
    const request = await prepare();
    const timer = setTimeout(() => run.controller.abort("timeout"), request.timeoutSeconds * 1000);
    const work = await mkdtemp(join(tmpdir(), "slipway-build-"));
    const redact = redactorOf([
      ...request.buildArgs.filter((a) => a.secret).map((a) => a.value),
      ...(request.credentials ? [request.credentials.password] : []),
    ]);
    const note = (line: string) => {
      run.log.push(redact(line));
      if (run.log.length > logLimit) run.log.splice(0, run.log.length - logLimit);
    };
    try {
      const context = await fetchContext(request, join(work, "context"), note);
      const storage = [
        "--root",
        join(this.#root, "root"),
        "--runroot",
        join(this.#root, "run"),
        "--storage-driver",
        "vfs",
      ];
      await this.#buildah(run, note, [...storage, ...budArgs(request, context)]);
      const push = [...storage, "push", `--tls-verify=${!request.insecure}`];
      if (request.credentials) {
        const authFile = join(work, "auth.json");
        await writeFile(authFile, dockerConfigFor(request.registry, request.credentials), { mode: 0o600 });
        await chmod(authFile, 0o600);
        push.push("--authfile", authFile);
      }
      await this.#buildah(run, note, [...push, request.reference, `docker://${request.reference}`]);
      note(`pushed ${request.reference}`);
      await this.#buildah(run, () => {}, [...storage, "rmi", request.reference]).catch(() => {});
    } finally {
      clearTimeout(timer);
      await rm(work, { recursive: true, force: true });
    }
  }

  #buildah(run: Run, note: (line: string) => void, args: string[]): Promise<void> {
    return new Promise((resolve, reject) => {
      const child = spawn(buildahPath, args, {
        env: buildahEnvironment(),
        stdio: ["ignore", "pipe", "pipe"],
        signal: run.controller.signal,
      });
      let tail = "";
      const collect = (chunk: Buffer) => {
        for (const line of chunk.toString().split("\n")) if (line.trim()) note(line);
        tail = (tail + chunk.toString()).slice(-2000);
      };
      child.stdout.on("data", collect);
      child.stderr.on("data", collect);
      child.on("error", (error) =>
        reject(
          run.controller.signal.aborted
            ? new Error(`buildah stopped (${String(run.controller.signal.reason)})`)
            : error,
        ),
      );
      child.on("close", (code) => {
        if (code === 0) resolve();
        else
          reject(
            new Error(
              `buildah ${args[args.indexOf("vfs") + 1]} exited with ${code}: ${run.log.slice(-3).join(" | ")}`,
            ),
          );
      });
    });
  }
}
