/**
 * Where a build runs: a Job on the cluster (Kaniko's or buildah's), or buildah on the operator's
 * machine. All are keyed by image reference, so concurrent builds of one reference share one run.
 */
import type { V1Job, V1Pod, V1Secret } from "@kubernetes/client-node";
import type { ImageBuild } from "../apis/builds/imagebuild.ts";
import { ownerReference } from "../kube/owners.ts";
import { ApiError } from "../kube/rest.ts";
import type { ReconcileContext } from "../kube/types.ts";
import { BoundedMap } from "../lib/bounded-map.ts";
import type { BuildAccess } from "./access.ts";
import { artifactLimits } from "./artifact-limits.ts";
import type { BlobUri } from "./blob-uri.ts";
import { buildCredentialGrant, buildCredentialSecret } from "./build-credential.ts";
import { type BuildJobInput, buildJobLabels, timeoutSeconds } from "./build-job.ts";
import { buildArgsSecretName, isCrossNamespace, ownsJob } from "./build-namespace.ts";
import { slotHolder } from "./build-slots.ts";
import { renderBuildahJob } from "./buildah-job.ts";
import type { BuildsConfig } from "./config.ts";
import type { JobObservation } from "./decide.ts";
import { observeJob } from "./job-observation.ts";
import { renderKanikoJob } from "./kaniko-job.ts";
import type { LocalBuilder } from "./local-builder.ts";
import { formatImageReference, type ImageReference } from "./naming.ts";
import { podSecretRefs } from "./redaction.ts";
import { mintBuildCredential } from "./registry/build-credentials.ts";
import { type BasicCredentials, CredentialsError } from "./registry/credentials.ts";
import { types } from "./resource-types.ts";
import { SecretNotFoundError, type SecretReader } from "./secrets.ts";

export interface JobTarget {
  build: ImageBuild;
  /** Of the Job and the credentials Secrets: the build's own, or the configured buildNamespace. */
  namespace: string;
  image: ImageReference;
  artifact: BlobUri;
  jobName: string;
}

/** A build slot held: the namespace it counts for, and the run holding it. */
export interface SlotHolding {
  namespace: string;
  run: string;
}

const jobRun = (namespace: string, name: string) => `${namespace}/${name}`;

export interface BuildBackend {
  readonly name: "kaniko" | "buildah" | "local";
  /** `pending`: the run's outcome is not fully visible yet; look again shortly. */
  observe(target: JobTarget, context: ReconcileContext): Promise<{ run: JobObservation; pending: boolean }>;
  /** Each build slot its runs hold now: whose (build-slots.ts), and which run (as runOf names it). */
  slotHolders(context: ReconcileContext): SlotHolding[];
  /** The run of `target`, as slotHolders names it: what a slot reservation waits to see (slot-reservations.ts). */
  runOf(target: JobTarget): string;
  /** The secret build arguments the operator itself must read for a run of `target` to start. */
  secretArgs(target: JobTarget, context: ReconcileContext): Promise<SecretArgs>;
  /**
   * `run`: what observe just saw of the target's run, so that it is not read again; `secretArgs`:
   * what secretArgs read (empty when joining a run).
   */
  start(
    target: JobTarget,
    context: ReconcileContext,
    run: JobObservation,
    secretArgs: Record<string, string>,
  ): Promise<void>;
  stop(target: JobTarget, context: ReconcileContext): Promise<void>;
}

/** The values of a build's secret build arguments (name → value), or the first one missing. */
export type SecretArgs = { values: Record<string, string> } | { invalid: string };

/**
 * The build's secret build arguments, from the build owner's Secrets in the build's own namespace
 * (credentials Secrets, by contrast, come from the Job's namespace).
 */
async function readSecretArgs(
  build: ImageBuild,
  secrets: SecretReader,
  context: ReconcileContext,
): Promise<SecretArgs> {
  const values: Record<string, string> = {};
  for (const arg of build.spec.buildArgs ?? []) {
    if (!arg.valueFrom) continue;
    const { name, key } = arg.valueFrom.secretKeyRef;
    let data: Record<string, string>;
    try {
      data = await secrets.read(context.client, build.metadata.namespace ?? "", name);
    } catch (error) {
      if (error instanceof SecretNotFoundError)
        return { invalid: `spec.buildArgs ${arg.name}: ${error.message}` };
      throw error;
    }
    const value = data[key];
    if (value === undefined)
      return { invalid: `spec.buildArgs ${arg.name}: Secret ${name} has no key ${key}` };
    // used as a secret whatever its key is called
    secrets.keep(value);
    values[arg.name] = value;
  }
  return { values };
}

/** The copy of a build's secret arguments next to its Job in the build namespace (owned by the Job once it has a uid). */
function secretArgsCopy(
  target: JobTarget,
  job: V1Job,
  values: Record<string, string>,
  jobUid?: string,
): V1Secret {
  return {
    apiVersion: "v1",
    kind: "Secret",
    metadata: {
      name: buildArgsSecretName(target.jobName),
      namespace: target.namespace,
      labels: job.metadata?.labels ?? {},
      ...(jobUid
        ? {
            ownerReferences: [
              ownerReference(
                { apiVersion: "batch/v1", kind: "Job", metadata: { name: target.jobName, uid: jobUid } },
                { controller: true },
              ),
            ],
          }
        : {}),
    },
    type: "Opaque",
    data: Object.fromEntries(Object.entries(values).map(([k, v]) => [k, Buffer.from(v).toString("base64")])),
  };
}

/** A refusal no retry changes: bad input (400, 422), forbidden (403), no such namespace (404). */
function permanentRefusal(error: unknown): error is ApiError {
  return (
    error instanceof ApiError &&
    error.status >= 400 &&
    error.status < 500 &&
    ![408, 409, 429].includes(error.status)
  );
}

/** Builds remembered as refused by the API server, per build uid and generation. */
const rejectionMemory = 1024;

const rejectionKey = (build: ImageBuild) => `${build.metadata.uid ?? ""}/${build.metadata.generation ?? 0}`;

/** The builder's Job of one image reference (Kaniko's, buildah's): what differs between the Job backends. */
export type JobRenderer = (input: BuildJobInput) => V1Job;

export const jobRenderers: Record<"kaniko" | "buildah", JobRenderer> = {
  kaniko: renderKanikoJob,
  buildah: renderBuildahJob,
};

/** A build Job per image reference on the cluster; `name` says whose Job (jobRenderers). */
export class JobBackend implements BuildBackend {
  readonly name: "kaniko" | "buildah";
  readonly #config: BuildsConfig;
  readonly #secrets: SecretReader;
  readonly #render: JobRenderer;
  /** Why a build's Job could not be made (a permanent 4xx, no credential to mint): the build fails with that, once. */
  readonly #rejected = new BoundedMap<string, { reason: "Rejected" | "NoCredential"; message: string }>(
    rejectionMemory,
  );

  constructor(name: "kaniko" | "buildah", config: BuildsConfig, secrets: SecretReader) {
    this.name = name;
    this.#config = config;
    this.#secrets = secrets;
    this.#render = jobRenderers[name];
  }

  /**
   * The Job of the target from the cache; one in the build namespace that the cache does not hold is
   * read directly (an operator watching only its own namespace), and then its pods cannot be seen.
   */
  async #job(target: JobTarget, context: ReconcileContext): Promise<{ job?: V1Job; podsVisible: boolean }> {
    const key = { namespace: target.namespace, name: target.jobName };
    const cached = context.cache.get<V1Job>(types.job, key);
    if (cached || !isCrossNamespace(target.build, target.namespace))
      return { job: cached, podsVisible: true };
    return { job: await context.client.get<V1Job>(types.job, key), podsVisible: false };
  }

  async observe(target: JobTarget, context: ReconcileContext) {
    const { job, podsVisible } = await this.#job(target, context);
    const rejected = job ? undefined : this.#rejected.get(rejectionKey(target.build));
    if (rejected !== undefined)
      return {
        run: { state: "failed", attempts: 0, ...rejected } as const,
        pending: false,
      };
    const pods = job
      ? context.cache.list<V1Pod>(types.pod, {
          namespace: target.namespace,
          labels: { "job-name": target.jobName },
        })
      : [];
    const owned = job ? ownsJob(job, target.build) : true;
    const observed = observeJob(job, podsVisible || pods.length > 0 ? pods : undefined, owned);
    // its message may echo what the pod was given, which this operator may never have read
    if (job && observed.run.state === "failed")
      await this.#secrets.learn(context.client, target.namespace, podSecretRefs(job.spec?.template.spec));
    return observed;
  }

  /** Only Jobs of builds the cache holds, by uid: a look-alike with the builds' labels holds no slot. */
  slotHolders(context: ReconcileContext): SlotHolding[] {
    const jobs = context.cache.list<V1Job>(types.job, {
      labels: { [buildJobLabels.component]: "image-build" },
    });
    const build = (namespace: string, name: string) =>
      context.cache.get<ImageBuild>(types.imageBuild, { namespace, name });
    return jobs.flatMap((job) => {
      const namespace = slotHolder(job, build);
      const run = jobRun(job.metadata?.namespace ?? "", job.metadata?.name ?? "");
      return namespace === undefined ? [] : [{ namespace, run }];
    });
  }

  runOf(target: JobTarget): string {
    return jobRun(target.namespace, target.jobName);
  }

  /** A Job in the build's own namespace refers to the Secrets itself; one elsewhere gets a copy. */
  async secretArgs(target: JobTarget, context: ReconcileContext): Promise<SecretArgs> {
    if (!isCrossNamespace(target.build, target.namespace)) return { values: {} };
    return readSecretArgs(target.build, this.#secrets, context);
  }

  /**
   * Creates the Job, owned (as controller) by the build that starts it. A build joining a running Job
   * does not touch it: it follows the Job by polling, and if the owner is deleted (and the Job with
   * it) the joiner starts over, with the registry check first.
   */
  async start(
    target: JobTarget,
    context: ReconcileContext,
    run: JobObservation,
    secretArgs: Record<string, string>,
  ): Promise<void> {
    if (run.state !== "absent") return;
    const input: BuildJobInput = {
      build: target.build,
      image: target.image,
      artifact: target.artifact,
      config: this.#config,
      namespace: target.namespace,
    };
    const job = this.#render(input);
    try {
      await this.#create(target, context, input, job, secretArgs);
    } catch (error) {
      const reason = error instanceof CredentialsError ? "NoCredential" : "Rejected";
      if (reason === "Rejected" && !permanentRefusal(error)) throw error;
      this.#rejected.set(rejectionKey(target.build), { reason, message: (error as Error).message });
    }
  }

  /**
   * The Job's own registry credential (registry.scopedCredentials), minted with the HMAC key of the
   * Secret it names in the Job's namespace; undefined without scoped credentials. A missing Secret or
   * key is a CredentialsError naming the field.
   */
  async #buildCredential(
    target: JobTarget,
    context: ReconcileContext,
    input: BuildJobInput,
  ): Promise<BasicCredentials | undefined> {
    const scoped = this.#config.registry.scopedCredentials;
    if (!scoped) return undefined;
    const where = `registry.scopedCredentials: Secret ${scoped.secret} in namespace ${target.namespace}`;
    let data: Record<string, string>;
    try {
      data = await this.#secrets.read(context.client, target.namespace, scoped.secret);
    } catch (error) {
      if (error instanceof SecretNotFoundError) throw new CredentialsError(`${where} not found`);
      throw error;
    }
    const key = data[scoped.key];
    if (!key) throw new CredentialsError(`${where} has no key ${scoped.key}`);
    const credentials = mintBuildCredential(key, buildCredentialGrant(input, Math.floor(Date.now() / 1000)));
    this.#secrets.keep(credentials.password);
    return credentials;
  }

  async #create(
    target: JobTarget,
    context: ReconcileContext,
    input: BuildJobInput,
    job: V1Job,
    secretArgs: Record<string, string>,
  ) {
    const credentials = await this.#buildCredential(target, context, input);
    const values =
      isCrossNamespace(target.build, target.namespace) && Object.keys(secretArgs).length > 0
        ? secretArgs
        : undefined;
    const registry = target.image.registry;
    // the Secrets first, then owned by the Job, to go with it
    if (values) await context.client.apply(secretArgsCopy(target, job, values));
    if (credentials) await context.client.apply(buildCredentialSecret(job, registry, credentials));
    const created = await context.client.apply(job);
    const uid = created.metadata?.uid;
    if (values) await context.client.apply(secretArgsCopy(target, job, values, uid));
    if (credentials) await context.client.apply(buildCredentialSecret(job, registry, credentials, uid));
  }

  /** Deletes the target's Job only if its build started it, or it has finished (a finished run harms no build). */
  async stop(target: JobTarget, context: ReconcileContext): Promise<void> {
    const { job } = await this.#job(target, context);
    if (!job) return;
    const { run } = observeJob(job, undefined);
    if (run.state === "running" && !ownsJob(job, target.build)) return;
    await context.client.delete(
      types.job,
      { namespace: target.namespace, name: target.jobName },
      { propagationPolicy: "Background" },
    );
  }
}

/** A local run is shared by the builds of one namespace and one image reference, never across namespaces. */
export function localBuildKey(target: Pick<JobTarget, "build" | "image">): string {
  return `${target.build.metadata.namespace ?? ""}/${formatImageReference(target.image)}`;
}

/** The namespace of a localBuildKey (a namespace's name has no `/`). */
const localBuildNamespace = (key: string) => key.slice(0, key.indexOf("/"));

export class LocalBackend implements BuildBackend {
  readonly name = "local";
  readonly #config: BuildsConfig;
  readonly #builder: LocalBuilder;
  readonly #access: BuildAccess;
  readonly #secrets: SecretReader;

  constructor(config: BuildsConfig, builder: LocalBuilder, access: BuildAccess, secrets: SecretReader) {
    this.#config = config;
    this.#builder = builder;
    this.#access = access;
    this.#secrets = secrets;
  }

  async observe(target: JobTarget) {
    return { run: this.#builder.observe(localBuildKey(target)), pending: false };
  }

  slotHolders(): SlotHolding[] {
    return this.#builder.runningKeys().map((run) => ({ namespace: localBuildNamespace(run), run }));
  }

  runOf(target: JobTarget): string {
    return localBuildKey(target);
  }

  secretArgs(target: JobTarget, context: ReconcileContext): Promise<SecretArgs> {
    return readSecretArgs(target.build, this.#secrets, context);
  }

  async start(
    target: JobTarget,
    context: ReconcileContext,
    _run: JobObservation,
    secretArgs: Record<string, string>,
  ): Promise<void> {
    const { build, namespace, image } = target;
    const reference = formatImageReference(image);
    this.#builder.start(localBuildKey(target), async () => {
      const store = await this.#access.blobStore(context.client, namespace);
      if (!store) throw new Error("no blob store is configured");
      const buildArgs = [];
      if (build.spec.baseImage)
        buildArgs.push({ name: "BASE_IMAGE", value: build.spec.baseImage, secret: false });
      for (const arg of build.spec.buildArgs ?? []) {
        const secret = arg.valueFrom !== undefined;
        buildArgs.push({ name: arg.name, value: (secret ? secretArgs[arg.name] : arg.value) ?? "", secret });
      }
      return {
        reference,
        registry: image.registry,
        insecure: this.#config.registry.insecure,
        artifact: target.artifact,
        store,
        dockerfile: build.spec.dockerfile ?? "Dockerfile",
        buildArgs,
        credentials: await this.#access.registryCredentials(context.client, namespace, image.registry),
        timeoutSeconds: timeoutSeconds(build, this.#config),
        limits: artifactLimits(this.#config.artifacts),
      };
    });
  }

  async stop(target: JobTarget): Promise<void> {
    this.#builder.stop(localBuildKey(target));
  }
}
