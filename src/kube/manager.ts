import { hostname } from "node:os";
import pino, { type Logger } from "pino";
import { Registry } from "../lib/metrics-client.ts";
import { InformerCache } from "./cache.ts";
import { KubeClient } from "./client.ts";
import { Controller } from "./controller.ts";
import { ResourceTypes } from "./discovery.ts";
import { KubeEventRecorder } from "./events.ts";
import type { ClusterAccess } from "./kubeconfig.ts";
import { defaultLeaseName, LeaderElector } from "./leader.ts";
import { RuntimeMetrics } from "./metrics.ts";
import { reviewAuthorizer } from "./ops-auth.ts";
import { type CacheRoute, type OpsRoute, OpsServer } from "./ops-server.ts";
import { type ClientRateLimit, defaultClientRateLimit } from "./rate-limit.ts";
import { cacheReadiness, type Readiness } from "./readiness.ts";
import { cacheId, optionalCacheIds, readKinds } from "./reads.ts";
import { RestClient } from "./rest.ts";
import type { ControllerSpec } from "./types.ts";

export interface ManagerOptions {
  /** A KubeConfig, or the operator's light loadClusterAccess(). */
  kubeConfig: ClusterAccess;
  /** Serve only these namespaces (namespaced kinds: one list+watch per namespace); default all namespaces. */
  namespaces?: string[];
  /** Shorthand for `namespaces: [namespace]`. */
  namespace?: string;
  fieldManager: string;
  /** Off when absent or false. */
  leaderElection?:
    | false
    | {
        leaseNamespace: string;
        leaseName?: string;
        identity?: string;
        leaseDurationMs?: number;
        renewDeadlineMs?: number;
        retryPeriodMs?: number;
      };
  /** Port for /metrics (0: any free port); none when absent. */
  metricsPort?: number;
  /** Port for /healthz and /readyz (0: any free port); may equal metricsPort. */
  healthPort?: number;
  /** Extra read-only endpoints answered from the cache, served beside /healthz. */
  routes?: CacheRoute[];
  /** The address the metrics and health ports listen on; default loopback (in a pod: 0.0.0.0). */
  opsBindAddress?: string;
  /**
   * /metrics and the routes answer only bearer tokens whose user RBAC allows to get the path
   * (TokenReview + SubjectAccessReview, ops-auth.ts); the probes stay open. For a pod's open port.
   */
  opsRequireToken?: boolean;
  /**
   * The client-side limit on the API requests of the caches, controllers and events (watches are
   * not counted; the Lease has a bucket of its own, so renewals never queue behind work); default
   * controller-runtime's, 20 qps with a burst of 30. `false`: none (the benches, as their peer).
   */
  clientRateLimit?: ClientRateLimit | false;
  log?: Logger;
  /** How long stop() lets in-flight reconciles finish. Default 30 s. */
  shutdownDeadlineMs?: number;
}

export type ManagerOutcome = "stopped" | "leadership-lost";

/** The namespaces a manager serves (undefined: all), from `namespaces` or its shorthand `namespace`. */
export function servedNamespaces(
  options: Pick<ManagerOptions, "namespace" | "namespaces">,
): string[] | undefined {
  if (options.namespace !== undefined && options.namespaces !== undefined) {
    throw new Error("Manager: give namespace or namespaces, not both");
  }
  const namespaces =
    options.namespaces ?? (options.namespace === undefined ? undefined : [options.namespace]);
  if (namespaces?.length === 0)
    throw new Error("Manager: namespaces is empty (omit it to serve all namespaces)");
  return namespaces;
}

/**
 * Owns what controllers share: one REST client, one informer cache (each type listed/watched once),
 * one Client, one EventRecorder, metrics and health endpoints, and leader election. Caches warm
 * before leadership is won; controllers' workers run only while leading.
 */
export class Manager {
  readonly metrics = new RuntimeMetrics();
  readonly rest: RestClient;
  readonly cache: InformerCache;
  readonly client: KubeClient;
  readonly events: KubeEventRecorder;
  readonly log: Logger;
  readonly identity: string;
  /** The namespaces it serves; undefined: all. */
  readonly namespaces: string[] | undefined;
  /** Ports the ops endpoints listen on, once started. */
  readonly ports: { metrics?: number; health?: number } = {};
  readonly #options: ManagerOptions;
  readonly #restOptions: ConstructorParameters<typeof RestClient>[1];
  readonly #types: ResourceTypes;
  readonly #specs: ControllerSpec[] = [];
  /** Cache ids only optional watches read (set at start, once every controller is added). */
  #optional = new Set<string>();
  readonly #controllers: Controller[] = [];
  readonly #servers: OpsServer[] = [];
  #elector: LeaderElector | undefined;
  #leaseRest: RestClient | undefined;
  #state: "new" | "starting" | "running" | "stopping" | "stopped" = "new";
  #resolveDone!: (outcome: ManagerOutcome) => void;
  /** Resolves when the manager stops, or when it lost leadership (the process should then exit). */
  readonly done: Promise<ManagerOutcome>;
  #leading = false;
  readonly #stopping = new AbortController();

  constructor(options: ManagerOptions) {
    this.#options = options;
    this.log = options.log ?? pino({ base: { component: "operator" } });
    this.identity =
      (options.leaderElection || undefined)?.identity ||
      `${hostname()}_${process.pid}_${Math.random().toString(36).slice(2, 8)}`;
    const rateLimit =
      options.clientRateLimit === false ? undefined : (options.clientRateLimit ?? defaultClientRateLimit);
    this.#restOptions = {
      onRequest: (code: string, method: string) => this.metrics.restRequests.inc({ code, method }),
      userAgent: `slipway-operator/${options.fieldManager}`,
      ...(rateLimit ? { rateLimit } : {}),
      onRateLimiterWait: (waitedMs: number) => this.metrics.rateLimiterWait.observe(waitedMs / 1000),
    };
    this.rest = new RestClient(options.kubeConfig, this.#restOptions);
    this.#types = new ResourceTypes(this.rest);
    this.namespaces = servedNamespaces(options);
    this.cache = new InformerCache(this.rest, { log: this.log, namespaces: this.namespaces });
    this.client = new KubeClient(this.rest, this.#types, {
      fieldManager: options.fieldManager,
      cache: this.cache,
    });
    this.events = new KubeEventRecorder(this.rest, {
      controller: `slipway.dev/${options.fieldManager}`,
      instance: this.identity,
      log: this.log,
    });
    this.done = new Promise((resolve) => {
      this.#resolveDone = resolve;
    });
  }

  add(spec: ControllerSpec): this {
    if (this.#state !== "new") throw new Error("add controllers before start()");
    if (this.#specs.some((s) => s.name === spec.name)) throw new Error(`controller ${spec.name} added twice`);
    this.#specs.push(spec);
    return this;
  }

  get leading(): boolean {
    return this.#leading;
  }

  /** Ready as /readyz says (readiness()). */
  get ready(): boolean {
    return this.readiness().ready;
  }

  /** /readyz: ready once every cache synced, else each cache's state (a kind not served named by group/version/resource). */
  readiness(): Readiness {
    return cacheReadiness(
      this.cache.states().map((cache) => ({ ...cache, optional: this.#optional.has(cache.resource) })),
    );
  }

  controller(name: string): Controller | undefined {
    return this.#controllers.find((c) => c.spec.name === name);
  }

  /**
   * Starts endpoints and caches, waits for the caches to sync and, with leader election, for the
   * lease; then starts the controllers. Resolves once controllers run (or stop() was called).
   */
  async start(): Promise<void> {
    if (this.#state !== "new") throw new Error("a manager starts once");
    this.#state = "starting";
    this.#optional = optionalCacheIds(this.#specs);
    await this.#listen();
    if (this.#servers.length > 0) this.log.info({ ports: this.ports }, "operations endpoints listening");
    for (const spec of this.#specs) {
      for (const type of readKinds(spec)) {
        this.#types.register(type);
        this.cache.informer(type);
      }
      this.#controllers.push(
        new Controller(spec, {
          cache: this.cache,
          client: this.client,
          events: this.events,
          log: this.log,
          metrics: this.metrics,
        }),
      );
    }
    for (const route of this.#options.routes ?? []) for (const type of route.reads) this.cache.informer(type);
    this.cache.start();
    const election = this.#options.leaderElection;
    const leaseName = (election || undefined)?.leaseName || defaultLeaseName;
    if (election) {
      this.metrics.leaderStatus.set({ name: leaseName }, 0);
      // its own client and bucket (as controller-runtime's leader election): a renewal never waits for work
      this.#leaseRest = new RestClient(this.#options.kubeConfig, this.#restOptions);
      this.#elector = new LeaderElector(
        this.#leaseRest,
        { ...election, leaseName, identity: this.identity },
        this.log,
        (leading) => {
          this.#leading = leading;
          this.metrics.leaderStatus.set({ name: leaseName }, leading ? 1 : 0);
        },
      );
    }
    // caches warm while campaigning; each controller starts once the caches it reads have synced,
    // so one kind whose CRD is missing holds back only the controllers that use it
    if (!(await this.#campaign()) || this.#state !== "starting") return;
    this.#state = "running";
    await Promise.all(this.#controllers.map((controller) => this.#startWhenSynced(controller)));
  }

  async #startWhenSynced(controller: Controller): Promise<void> {
    const signal = this.#stopping.signal;
    try {
      await Promise.all(
        controller
          .types()
          .map((type) =>
            this.cache.informer(type).waitForSync(signal, { orUnserved: this.#optional.has(cacheId(type)) }),
          ),
      );
    } catch {
      return; // stopped before the caches synced
    }
    if (this.#state !== "running") return;
    this.log.info({ controller: controller.spec.name, identity: this.identity }, "starting controller");
    controller.start();
  }

  /** Without leader election: leading at once. With it: waits for the lease, then keeps renewing it in the background. */
  async #campaign(): Promise<boolean> {
    const elector = this.#elector;
    if (!elector) {
      this.#leading = true;
      return true;
    }
    if (!(await elector.acquire())) return false;
    this.#leading = true;
    elector.renewUntilLost().then(async () => {
      if (this.#state !== "starting" && this.#state !== "running") return;
      this.#leading = false;
      await this.#shutdown(false);
      this.#resolveDone("leadership-lost");
    });
    return true;
  }

  /** Stops intake, lets in-flight reconciles finish within the deadline, releases the lease. */
  async stop(): Promise<void> {
    if (this.#state === "stopping" || this.#state === "stopped") return this.done.then(() => {});
    await this.#shutdown(true);
    this.#resolveDone("stopped");
  }

  async #shutdown(release: boolean): Promise<void> {
    this.#state = "stopping";
    this.#stopping.abort();
    const deadline = this.#options.shutdownDeadlineMs ?? 30_000;
    await Promise.all(this.#controllers.map((controller) => controller.stop(deadline)));
    await Promise.race([this.events.flush(), new Promise((resolve) => setTimeout(resolve, 2_000).unref())]);
    if (this.#elector) {
      if (release) await this.#elector.release();
      else await this.#elector.release().catch(() => {});
    }
    this.#leading = false;
    await this.cache.stop();
    await Promise.all(this.#servers.map((server) => server.close()));
    this.rest.close();
    this.#leaseRest?.close();
    this.#state = "stopped";
  }

  async #listen(): Promise<void> {
    const { metricsPort, healthPort, opsBindAddress: host } = this.#options;
    const authorize = this.#options.opsRequireToken ? reviewAuthorizer(this.rest) : undefined;
    const readiness = () => this.readiness();
    const routes: OpsRoute[] = (this.#options.routes ?? []).map((route) => ({
      path: route.path,
      ready: () => route.reads.every((type) => this.cache.informer(type).synced),
      get: (params) => route.get(params, this.cache),
    }));
    const registry = Registry.merge([
      this.metrics.registry,
      ...this.#specs.flatMap((s) => (s.metrics ? [s.metrics] : [])),
    ]);
    if (metricsPort !== undefined && metricsPort === healthPort) {
      const server = new OpsServer({ registry, readiness, routes, authorize });
      this.#servers.push(server);
      this.ports.metrics = this.ports.health = await server.listen(metricsPort, host);
      return;
    }
    if (metricsPort !== undefined) {
      const server = new OpsServer({ registry, authorize });
      this.#servers.push(server);
      this.ports.metrics = await server.listen(metricsPort, host);
    }
    if (healthPort !== undefined) {
      const server = new OpsServer({ readiness, routes, authorize });
      this.#servers.push(server);
      this.ports.health = await server.listen(healthPort, host);
    }
  }
}
