import { describe, expect, it } from "vitest";
import { describeObject, logKey, podsIn, withoutManagedFields } from "../../src/dev/describe-object.ts";
import { waitFor } from "../../src/dev/health.ts";

const managedFields = [
  { manager: "kubelet", operation: "Update", fieldsV1: { "f:status": { big: "x".repeat(5000) } } },
];

/** A pod whose first container crashed and was restarted and whose second one waits. */
const failingPod = {
  apiVersion: "v1",
  kind: "Pod",
  metadata: { name: "client", namespace: "rn-1", managedFields },
  spec: { containers: [{ name: "client" }, { name: "sidecar" }] },
  status: {
    phase: "Failed",
    conditions: [
      { type: "Ready", status: "False", reason: "PodFailed" },
      { type: "PodScheduled", status: "True" },
    ],
    initContainerStatuses: [
      { name: "init", ready: true, state: { terminated: { exitCode: 0, reason: "Completed" } } },
    ],
    containerStatuses: [
      {
        name: "client",
        ready: false,
        restartCount: 2,
        state: { terminated: { exitCode: 1, reason: "Error", message: "getaddrinfo EAI_AGAIN web" } },
        lastState: { terminated: { exitCode: 137, reason: "OOMKilled" } },
      },
      {
        name: "sidecar",
        ready: false,
        state: { waiting: { reason: "ImagePullBackOff", message: "no such image" } },
      },
    ],
    podIP: "10.88.0.7",
  },
};

describe("describeObject (what a timed-out wait prints)", () => {
  it("gives a pod's phase, conditions, each container's state with reason and exit code, and its logs — no managedFields", () => {
    const logs = new Map<string, string[] | string>([
      [logKey("rn-1", "client", "client"), ["line 1", "resolving web", "Error: getaddrinfo EAI_AGAIN web"]],
      [logKey("rn-1", "client", "init"), "container init is not running"],
    ]);
    const text = describeObject(failingPod, { logs, tailLines: 2 });
    expect(text.split("\n")).toEqual([
      "Pod rn-1/client, phase Failed",
      "  conditions: Ready=False (PodFailed); PodScheduled=True",
      "  init container init: terminated Completed (exit code 0), ready",
      "  container client: terminated Error (exit code 1): getaddrinfo EAI_AGAIN web, 2 restart(s); last: terminated OOMKilled (exit code 137)",
      "  container sidecar: waiting ImagePullBackOff: no such image",
      "  logs of init: unavailable (container init is not running)",
      "  last 2 log line(s) of client:",
      "    | resolving web",
      "    | Error: getaddrinfo EAI_AGAIN web",
      '  status: {"podIP":"10.88.0.7"}',
    ]);
    expect(text).not.toContain("managedFields");
    expect(text).not.toContain("kubelet");
  });

  it("asks logs only of the containers that started", () => {
    expect(podsIn(failingPod)).toEqual([
      { namespace: "rn-1", name: "client", containers: ["init", "client"] },
    ]);
    expect(
      podsIn({ items: [failingPod, { ...failingPod, metadata: { name: "b", namespace: "n" } }] }),
    ).toHaveLength(2);
    expect(podsIn({ kind: "Deployment", metadata: { name: "web" } })).toEqual([]);
  });

  it("describes any object's conditions and the rest of its status, and a list item by item", () => {
    const deployment = {
      kind: "Deployment",
      metadata: { name: "web", namespace: "rn-1", managedFields },
      status: {
        replicas: 1,
        conditions: [
          { type: "Available", status: "False", reason: "MinimumReplicasUnavailable", message: "not yet" },
        ],
      },
    };
    expect(describeObject(deployment)).toBe(
      [
        "Deployment rn-1/web",
        "  conditions: Available=False (MinimumReplicasUnavailable: not yet)",
        '  status: {"replicas":1}',
      ].join("\n"),
    );
    const node = { kind: "Node", metadata: { name: "n", deletionTimestamp: "2020-01-01T00:00:00Z" } };
    expect(describeObject({ items: [deployment, node] }).split("\n")).toEqual([
      "2 object(s):",
      "Deployment rn-1/web",
      "  conditions: Available=False (MinimumReplicasUnavailable: not yet)",
      '  status: {"replicas":1}',
      "Node n, deleting, no status",
    ]);
  });

  it("prints a Secret's or ConfigMap's keys, never its values", () => {
    const secret = { kind: "Secret", metadata: { name: "s", namespace: "n" }, data: { token: "c2VjcmV0" } };
    const text = describeObject(secret);
    expect(text).toBe("Secret n/s, no status\n  data keys: token");
    expect(text).not.toContain("c2VjcmV0");
  });

  it("prints anything else as JSON without managedFields, cut at 2,000 characters", () => {
    expect(describeObject({ code: 404, body: { metadata: { managedFields } } })).toBe(
      '{"code":404,"body":{"metadata":{}}}',
    );
    expect(describeObject("x".repeat(3000))).toHaveLength(2000 + "… (cut)".length);
    expect(describeObject([])).toBe("[]");
    expect(withoutManagedFields({ items: [{ metadata: { name: "a", managedFields } }] })).toEqual({
      items: [{ metadata: { name: "a" } }],
    });
  });
});

describe("the dev plane's waitFor", () => {
  it("on a timeout adds what `explain` says then (a failing explain says why it failed)", async () => {
    const never = async () => ({ ok: false, detail: "kube-dns: 0/1 endpoints ready" });
    await expect(
      waitFor("cluster DNS", never, {
        timeoutMs: 30,
        intervalMs: 10,
        explain: async () => "Pod kube-system/coredns",
      }),
    ).rejects.toThrow(
      "cluster DNS not ready after 0.03s (last probe: kube-dns: 0/1 endpoints ready)\nPod kube-system/coredns",
    );
    await expect(
      waitFor("x", never, {
        timeoutMs: 30,
        intervalMs: 10,
        explain: async () => {
          throw new Error("pods: forbidden");
        },
      }),
    ).rejects.toThrow("\n(pods: forbidden)");
  });
});
