/**
 * The operator's leader Lease by name, on the real API server: with the bundle's RBAC (serving its own
 * namespace, or a list of others with a leader Role in its own) the operator takes and renews its
 * Lease `slipway-operator`, and is refused (403) reading or updating a Lease of any other name there.
 */
import { CoordinationV1Api, type V1Lease } from "@kubernetes/client-node";
import pino from "pino";
import { describe, expect, it, onTestFinished } from "vitest";
import { bundleFor, operatorName } from "../../../src/bundle/bundle.ts";
import { defaultLeaseName } from "../../../src/kube/leader.ts";
import { Manager } from "../../../src/kube/manager.ts";
import { adminConfig, eventually, testNamespace } from "../../support/cluster.ts";
import { applyRbac, bundleOptions, forbiddenRequests } from "../../support/operator-rbac.ts";
import { serviceAccountConfig } from "../../support/service-account.ts";
import { statusOf } from "./request-status.ts";

const leasePath = (namespace: string, name: string) =>
  `/apis/coordination.k8s.io/v1/namespaces/${namespace}/leases/${name}`;

const readLease = (namespace: string, name: string) =>
  adminConfig().makeApiClient(CoordinationV1Api).readNamespacedLease({ name, namespace });

async function adminLease(namespace: string, name: string): Promise<V1Lease> {
  return adminConfig()
    .makeApiClient(CoordinationV1Api)
    .createNamespacedLease({
      namespace,
      body: { metadata: { name }, spec: { holderIdentity: "someone-else", leaseDurationSeconds: 15 } },
    });
}

async function leaderAs(own: string, served: string[]): Promise<Manager> {
  const manager = new Manager({
    kubeConfig: await serviceAccountConfig(adminConfig(), own, operatorName),
    namespaces: served,
    fieldManager: "slipway-operator",
    leaderElection: { leaseNamespace: own, retryPeriodMs: 500 },
    log: pino({ level: process.env.RBAC_TEST_LOG ?? "silent" }),
    shutdownDeadlineMs: 2_000,
  });
  void manager.start().catch(() => {});
  onTestFinished(() => manager.stop());
  return manager;
}

describe("the operator's leader Lease by name", () => {
  it.each([
    ["its own namespace", false],
    ["a list of namespaces (the leader Role)", true],
  ])(
    "serving %s: takes and renews its Lease, refused any other Lease's get and update",
    async (_, listed) => {
      const own = await testNamespace("lease-own");
      const served = listed ? [await testNamespace("lease-served")] : [own];
      await applyRbac(bundleFor(own, { ...bundleOptions([]), ...(listed ? { serves: served } : {}) }));
      const other = await adminLease(own, "another-lease");
      const manager = await leaderAs(own, served);

      const taken = await eventually(
        "the operator holding its Lease",
        () => readLease(own, defaultLeaseName),
        (lease) => lease.spec?.holderIdentity === manager.identity,
        30_000,
      );
      await eventually(
        "the Lease renewed",
        () => readLease(own, defaultLeaseName),
        (lease) => String(lease.spec?.renewTime) !== String(taken.spec?.renewTime),
        15_000,
      );
      expect(manager.leading).toBe(true);
      expect(await forbiddenRequests(manager)).toBe(0);

      const path = leasePath(own, "another-lease");
      const body = { ...other, spec: { ...other.spec, holderIdentity: manager.identity } };
      expect(await statusOf(manager.rest.request("GET", path))).toBe(403);
      expect(await statusOf(manager.rest.request("PUT", path, { body }))).toBe(403);
      expect((await readLease(own, "another-lease")).spec?.holderIdentity).toBe("someone-else");
    },
  );
});
