/**
 * executePlan (src/kube/plan.ts) on the real API server: the order of commands and of an area
 * command's follow-ups, the finalizer patch's copy under the status write, a stale status write
 * ending the plan, Events only with a write (a RecordEvent without one), the soonest requeue. The plans are run by hand on the
 * Manager's cache (its controller does nothing), so each one runs exactly once.
 */
import type { V1ConfigMap } from "@kubernetes/client-node";
import pino from "pino";
import { beforeAll, describe, expect, onTestFinished, test } from "vitest";
import { KubeClient } from "../../../src/kube/client.ts";
import { ResourceTypes } from "../../../src/kube/discovery.ts";
import { Manager } from "../../../src/kube/manager.ts";
import { executePlan, type PlanCommand } from "../../../src/kube/plan.ts";
import { eventType } from "../../../src/kube/runtime-types.ts";
import { StatusWriter } from "../../../src/kube/status-writer.ts";
import type { KubeObject, ReconcileContext } from "../../../src/kube/types.ts";
import { adminConfig, eventually, testNamespace } from "../../support/cluster.ts";
import { installCrds } from "../../support/crds.ts";
import { configMapType, Widget, type WidgetObject, widget, widgetType } from "../../support/test-kind.ts";

beforeAll(() => installCrds([Widget]));

const quiet = pino({ level: "silent" });
type Status = NonNullable<WidgetObject["status"]>;

type EventObject = KubeObject & {
  reason?: string;
  regarding?: { name?: string };
  series?: { count?: number };
};

/** An area's own command: looks at the ConfigMap `probe`, notes what it holds, answers `followUps`. */
interface Probe {
  type: "Probe";
  label: string;
  followUps?: PlanCommand<Status, Probe>[];
}

interface Plane {
  manager: Manager;
  namespace: string;
  context: ReconcileContext;
  /** What each Probe saw, in the order they ran. */
  seen: string[];
  effect: (command: Probe) => Promise<readonly PlanCommand<Status, Probe>[]>;
}

async function plane(): Promise<Plane> {
  const namespace = await testNamespace("plan");
  const manager = new Manager({
    kubeConfig: adminConfig(),
    namespace,
    fieldManager: "plan-test",
    log: quiet,
  });
  manager.add({ name: "idle", for: widgetType, permissions: [], reconcile: async () => undefined });
  onTestFinished(() => manager.stop());
  await manager.start();
  const context: ReconcileContext = {
    cache: manager.cache,
    client: manager.client,
    events: manager.events,
    log: quiet,
    signal: new AbortController().signal,
  };
  const seen: string[] = [];
  const effect = async (command: Probe) => {
    const probe = await manager.client.get<V1ConfigMap>(configMapType, { namespace, name: "probe" });
    seen.push(`${command.label}:${probe?.data?.step ?? "absent"}`);
    return command.followUps ?? [];
  };
  return { manager, namespace, context, seen, effect };
}

const probeStep = (namespace: string, step: string): PlanCommand<Status, Probe> => ({
  type: "Apply",
  object: {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name: "probe", namespace },
    data: { step },
  } as V1ConfigMap & KubeObject,
});

/** A status write with an Event of `reason`; `written.afterWrite` counts the runs of its afterWrite. */
function statusWrite(status: Status, reason: string) {
  const written = { afterWrite: 0 };
  const command: PlanCommand<Status, Probe> = {
    type: "SetStatus",
    status,
    events: [{ type: "Normal", reason, message: `size ${status.size}` }],
    afterWrite: async () => {
      written.afterWrite += 1;
    },
  };
  return { command, written };
}

/** A Widget created on the server, as the cache holds it (with `status`, when one is asked for). */
async function cachedWidget(p: Plane, name: string, status?: Status): Promise<WidgetObject> {
  const created = await p.manager.client.create(widget(p.namespace, name, 1));
  if (status) await p.manager.client.applyStatus({ ...created, status });
  const cached = await eventually(
    `widget ${name} in the cache`,
    async () => p.manager.cache.get<WidgetObject>(widgetType, { namespace: p.namespace, name }),
    (cached) => cached !== undefined && (status === undefined || cached.status?.size === status.size),
  );
  return cached as WidgetObject;
}

const target = (p: Plane, object: WidgetObject, writer = new StatusWriter<Status>()) => ({
  resource: widgetType,
  object,
  writer,
  context: p.context,
});

const serverWidget = async (p: Plane, name: string) =>
  p.manager.client.get<WidgetObject>(widgetType, { namespace: p.namespace, name });

/** How many Events of `reason` were recorded about the widget `name` (series counted). */
async function recorded(p: Plane, name: string, reason: string): Promise<number> {
  await p.manager.events.flush();
  const events = await p.manager.client.list<EventObject>(eventType, { namespace: p.namespace });
  return events
    .filter((e) => e.regarding?.name === name && e.reason === reason)
    .reduce((sum, e) => sum + (e.series?.count ?? 1), 0);
}

describe("executePlan on the real API server", () => {
  test("runs the commands in order, an area command's follow-ups before the rest", async () => {
    const p = await plane();
    const object = await cachedWidget(p, "order");
    const plan: PlanCommand<Status, Probe>[] = [
      probeStep(p.namespace, "1"),
      { type: "Probe", label: "a" },
      probeStep(p.namespace, "2"),
      { type: "Probe", label: "b", followUps: [probeStep(p.namespace, "3"), { type: "Probe", label: "c" }] },
      { type: "Probe", label: "d" },
      { type: "Delete", resource: configMapType, key: { namespace: p.namespace, name: "probe" } },
      { type: "Probe", label: "e" },
    ];

    expect(await executePlan(plan, target(p, object), p.effect)).toBeUndefined();
    expect(p.seen).toEqual(["a:1", "b:2", "c:3", "d:3", "e:absent"]);
  });

  test("a status write after AddFinalizer is based on the copy the finalizer patch returned", async () => {
    const p = await plane();
    const object = await cachedWidget(p, "finalized");
    const write = statusWrite({ size: 7 }, "Planned");
    const plan: PlanCommand<Status, Probe>[] = [
      { type: "AddFinalizer", finalizer: "test.slipway.dev/plan" },
      write.command,
    ];

    expect(await executePlan(plan, target(p, object), p.effect)).toBeUndefined();
    const stored = await serverWidget(p, "finalized");
    expect(stored?.metadata.finalizers).toEqual(["test.slipway.dev/plan"]);
    expect(stored?.status).toEqual({ size: 7 });
    expect(write.written.afterWrite).toBe(1);
    expect(await recorded(p, "finalized", "Planned")).toBe(1);
    // the cached copy's resourceVersion is the one the finalizer patch replaced: a write on it is refused
    const onCached = await new StatusWriter<Status>().write(p.context, object, { size: 8 });
    expect(onCached).toEqual({ written: false, requeueAfterMs: 50, stale: true });

    const removal: PlanCommand<Status, Probe>[] = [
      { type: "RemoveFinalizer", finalizer: "test.slipway.dev/plan" },
    ];
    expect(await executePlan(removal, target(p, stored as WidgetObject), p.effect)).toBeUndefined();
    expect((await serverWidget(p, "finalized"))?.metadata.finalizers).toBeUndefined();
  });

  test("a status write refused as stale ends the plan: nothing after it, no Event, back in 50 ms", async () => {
    const p = await plane();
    const object = await cachedWidget(p, "stale");
    // someone writes the object between the cache read and the plan
    const someoneElse = new KubeClient(p.manager.rest, new ResourceTypes(p.manager.rest), {
      fieldManager: "someone-else",
    });
    const labelled = widget(p.namespace, "stale", 1);
    await someoneElse.apply({ ...labelled, metadata: { ...labelled.metadata, labels: { by: "x" } } });
    const write = statusWrite({ size: 9 }, "Stale");
    const plan: PlanCommand<Status, Probe>[] = [
      { type: "Requeue", afterMs: 20_000 },
      write.command,
      {
        type: "RecordEvent",
        event: { type: "Normal", reason: "AfterStale", message: "decided from the stale copy" },
      },
      probeStep(p.namespace, "after-stale"),
      { type: "Probe", label: "after-stale" },
      { type: "Requeue", afterMs: 10 },
    ];

    expect(await executePlan(plan, target(p, object), p.effect)).toEqual({ requeueAfterMs: 50 });
    expect(
      await p.manager.client.get(configMapType, { namespace: p.namespace, name: "probe" }),
    ).toBeUndefined();
    expect(p.seen).toEqual([]);
    expect(write.written.afterWrite).toBe(0);
    const stored = await serverWidget(p, "stale");
    expect(stored?.metadata.labels).toEqual({ by: "x" });
    expect(stored?.status).toBeUndefined();
    expect(await recorded(p, "stale", "Stale")).toBe(0);
    expect(await recorded(p, "stale", "AfterStale")).toBe(0);
  });

  test("a status equal to the cached one is not written: no Event, no afterWrite, the plan goes on (a RecordEvent is recorded)", async () => {
    const p = await plane();
    const object = await cachedWidget(p, "same", { size: 4 });
    const write = statusWrite({ size: 4 }, "Unchanged");
    const plan: PlanCommand<Status, Probe>[] = [
      write.command,
      probeStep(p.namespace, "after-same"),
      { type: "Probe", label: "next" },
      { type: "RecordEvent", event: { type: "Normal", reason: "Noted", message: "with no status write" } },
    ];

    expect(await executePlan(plan, target(p, object), p.effect)).toBeUndefined();
    expect(p.seen).toEqual(["next:after-same"]);
    expect(write.written.afterWrite).toBe(0);
    expect(await recorded(p, "same", "Unchanged")).toBe(0);
    expect(await recorded(p, "same", "Noted")).toBe(1);
  });

  test("the soonest requeue wins: Requeue commands, a follow-up's, a paced write's", async () => {
    const p = await plane();
    const object = await cachedWidget(p, "requeue");
    const requeues: PlanCommand<Status, Probe>[] = [
      { type: "Requeue", afterMs: 3_000 },
      { type: "Probe", label: "p", followUps: [{ type: "Requeue", afterMs: 700 }] },
      { type: "Requeue", afterMs: 1_500 },
      { type: "Requeue", afterMs: 0 },
    ];
    expect(await executePlan(requeues, target(p, object), p.effect)).toEqual({ requeueAfterMs: 700 });

    // a writer that holds a detail-only change for 10 s after the last write (its clock stands still)
    const paced = new StatusWriter<Status>({
      pacing: { intervalMs: 10_000, headline: ["size"] },
      now: () => 1_000,
    });
    const first: PlanCommand<Status, Probe>[] = [{ type: "SetStatus", status: { size: 1 } }];
    expect(await executePlan(first, target(p, object, paced), p.effect)).toBeUndefined();
    const written = await eventually(
      "the first status in the cache",
      async () => p.manager.cache.get<WidgetObject>(widgetType, { namespace: p.namespace, name: "requeue" }),
      (cached) => cached?.status?.size === 1,
    );
    const detail = (afterMs: number): PlanCommand<Status, Probe>[] => [
      {
        type: "SetStatus",
        status: { size: 1, observedGeneration: 1 },
        events: [{ type: "Normal", reason: "Held", message: "detail" }],
      },
      { type: "Requeue", afterMs },
    ];
    expect(await executePlan(detail(20_000), target(p, written as WidgetObject, paced), p.effect)).toEqual({
      requeueAfterMs: 10_000,
    });
    expect(await executePlan(detail(4_000), target(p, written as WidgetObject, paced), p.effect)).toEqual({
      requeueAfterMs: 4_000,
    });
    expect((await serverWidget(p, "requeue"))?.status).toEqual({ size: 1 });
    expect(await recorded(p, "requeue", "Held")).toBe(0);
  });

  test("an area command without an effect to carry it out is an error", async () => {
    const p = await plane();
    const object = await cachedWidget(p, "no-effect");
    await expect(
      executePlan<Status, Probe>([{ type: "Probe", label: "x" }], target(p, object)),
    ).rejects.toThrow("no effect carries out the command Probe");
  });
});
