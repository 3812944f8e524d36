import type { Logger } from "pino";
import { abortableSleep } from "../lib/abortable-sleep.ts";
import { resourcePath } from "./keys.ts";
import { isConflict, isNotFound, type RestClient } from "./rest.ts";
import { leaseType } from "./runtime-types.ts";

/** The leader Lease's name unless a Manager is given another (the bundle's RBAC names this one). */
export const defaultLeaseName = "slipway-operator";

export interface LeaderElectionOptions {
  leaseName: string;
  leaseNamespace: string;
  identity: string;
  leaseDurationMs?: number;
  renewDeadlineMs?: number;
  retryPeriodMs?: number;
}

interface Lease {
  apiVersion: "coordination.k8s.io/v1";
  kind: "Lease";
  metadata: { name: string; namespace: string; resourceVersion?: string };
  spec: {
    holderIdentity?: string | null;
    leaseDurationSeconds?: number;
    acquireTime?: string | null;
    renewTime?: string | null;
    leaseTransitions?: number;
  };
}

const microTime = (date: Date) => `${date.toISOString().slice(0, 23)}000Z`;

/**
 * Whether a lease held by someone else may be taken: when it has no holder, or when its record has
 * not changed for the lease duration as observed on this process's clock (client-go's rule; it
 * does not trust the other process's clock).
 */
export function canAcquire(
  lease: Lease["spec"],
  identity: string,
  observedAt: number,
  now: number,
  leaseDurationMs: number,
): boolean {
  if (!lease.holderIdentity || lease.holderIdentity === identity) return true;
  return now >= observedAt + leaseDurationMs;
}

/**
 * Leader election on a coordination.k8s.io/v1 Lease (defaults 15 s lease, 10 s renew deadline,
 * 2 s retry). `run` resolves when leadership is lost or `release` is called.
 */
export class LeaderElector {
  readonly #rest: RestClient;
  readonly #log: Logger;
  readonly #options: Required<LeaderElectionOptions>;
  readonly #abort = new AbortController();
  #leading = false;
  #observed: { record: string; at: number } | undefined;
  #resourceVersion: string | undefined;
  #transitions = 0;
  readonly #onChange: (leading: boolean) => void;

  constructor(
    rest: RestClient,
    options: LeaderElectionOptions,
    log: Logger,
    onChange: (leading: boolean) => void = () => {},
  ) {
    this.#rest = rest;
    this.#log = log;
    this.#onChange = onChange;
    this.#options = { leaseDurationMs: 15_000, renewDeadlineMs: 10_000, retryPeriodMs: 2_000, ...options };
  }

  get leading(): boolean {
    return this.#leading;
  }

  /** Waits until this process holds the lease; resolves false if stopped first. */
  async acquire(): Promise<boolean> {
    while (!this.#abort.signal.aborted) {
      if (await this.#tryAcquireOrRenew()) {
        this.#setLeading(true);
        return true;
      }
      await this.#sleep(this.#options.retryPeriodMs);
    }
    return false;
  }

  /** Renews every retry period; resolves when a renewal has failed for the renew deadline (leadership lost) or on stop. */
  async renewUntilLost(): Promise<void> {
    let lastRenew = Date.now();
    while (!this.#abort.signal.aborted) {
      await this.#sleep(this.#options.retryPeriodMs);
      if (this.#abort.signal.aborted) return;
      if (await this.#tryAcquireOrRenew()) {
        lastRenew = Date.now();
      } else if (Date.now() - lastRenew >= this.#options.renewDeadlineMs || !this.#holdsLastObserved()) {
        this.#log.error({ lease: this.#options.leaseName }, "leadership lost");
        this.#setLeading(false);
        return;
      }
    }
  }

  /** Stops renewing and, if leading, clears holderIdentity so another process can take over at once. */
  async release(): Promise<void> {
    this.#abort.abort();
    if (!this.#leading) return;
    this.#setLeading(false);
    try {
      const lease = await this.#read();
      if (lease?.spec.holderIdentity !== this.#options.identity) return;
      const now = microTime(new Date());
      await this.#rest.request("PUT", this.#path(lease.metadata.name), {
        body: {
          ...lease,
          spec: {
            ...lease.spec,
            holderIdentity: null,
            leaseDurationSeconds: 1,
            acquireTime: now,
            renewTime: now,
          },
        },
      });
      this.#log.info({ lease: this.#options.leaseName }, "leader lease released");
    } catch (error) {
      this.#log.warn({ err: (error as Error).message }, "could not release the leader lease");
    }
  }

  #lastHolder: string | undefined;
  #holdsLastObserved(): boolean {
    return this.#lastHolder === this.#options.identity;
  }

  async #tryAcquireOrRenew(): Promise<boolean> {
    const { identity, leaseDurationMs } = this.#options;
    const now = new Date();
    try {
      const lease = await this.#read();
      const spec: Lease["spec"] = {
        holderIdentity: identity,
        leaseDurationSeconds: Math.ceil(leaseDurationMs / 1000),
        renewTime: microTime(now),
      };
      if (!lease) {
        await this.#rest.request("POST", this.#path(), {
          body: this.#leaseObject({ ...spec, acquireTime: microTime(now), leaseTransitions: 0 }),
        });
        this.#lastHolder = identity;
        return true;
      }
      const record = JSON.stringify(lease.spec);
      if (this.#observed?.record !== record) this.#observed = { record, at: Date.now() };
      this.#lastHolder = lease.spec.holderIdentity ?? undefined;
      this.#resourceVersion = lease.metadata.resourceVersion;
      this.#transitions = lease.spec.leaseTransitions ?? 0;
      if (!canAcquire(lease.spec, identity, this.#observed.at, Date.now(), leaseDurationMs)) return false;
      const taking = lease.spec.holderIdentity !== identity;
      const next: Lease["spec"] = {
        ...spec,
        acquireTime: taking ? microTime(now) : (lease.spec.acquireTime ?? microTime(now)),
        leaseTransitions: taking ? this.#transitions + 1 : this.#transitions,
      };
      const updated = await this.#rest.request<Lease>("PUT", this.#path(this.#options.leaseName), {
        body: {
          ...this.#leaseObject(next),
          metadata: { ...lease.metadata, resourceVersion: this.#resourceVersion },
        },
      });
      this.#observed = { record: JSON.stringify(updated.spec), at: Date.now() };
      this.#lastHolder = identity;
      return true;
    } catch (error) {
      if (!isConflict(error)) {
        this.#log.warn(
          { err: (error as Error).message },
          "leader election: could not read or update the lease",
        );
      }
      return false;
    }
  }

  async #read(): Promise<Lease | undefined> {
    try {
      return await this.#rest.request<Lease>("GET", this.#path(this.#options.leaseName));
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw error;
    }
  }

  #leaseObject(spec: Lease["spec"]): Lease {
    return {
      apiVersion: "coordination.k8s.io/v1",
      kind: "Lease",
      metadata: { name: this.#options.leaseName, namespace: this.#options.leaseNamespace },
      spec,
    };
  }

  #path(name?: string): string {
    return resourcePath(leaseType, { namespace: this.#options.leaseNamespace, ...(name ? { name } : {}) });
  }

  #setLeading(leading: boolean): void {
    if (this.#leading === leading) return;
    this.#leading = leading;
    this.#onChange(leading);
  }

  #sleep(ms: number): Promise<void> {
    return abortableSleep(ms, this.#abort.signal);
  }
}
