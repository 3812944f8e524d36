/**
 * The bundle's API Priority and Fairness objects (flowcontrol.apiserver.k8s.io/v1): a priority level
 * of the operator's own and a FlowSchema that sends every request of the operator's ServiceAccount
 * there, so a flood of the operator's requests queues in its level instead of taking the seats of
 * users' requests (which the built-in `service-accounts` and `global-default` schemas classify).
 * Like the bundle's other cluster-wide objects both are named after the namespace the bundle is
 * placed in (inNamespace), and the schema's subject is the ServiceAccount of that namespace.
 * Field names and the built-in configuration: https://kubernetes.io/docs/concepts/cluster-administration/flow-control/
 * and https://kubernetes.io/docs/reference/kubernetes-api/policy-resources/flow-schema-v1/.
 */
import type { BundleObject } from "./bundle.ts";

export const flowControlApiVersion = "flowcontrol.apiserver.k8s.io/v1";
/** In install order: the level first, so the schema never points at a level that does not exist yet. */
export const flowControlKinds = ["PriorityLevelConfiguration", "FlowSchema"];

/**
 * Lower wins. The built-in `service-accounts` schema (9000), which would otherwise put the operator's
 * requests in `workload-low` with every other workload's, comes after this one; every other built-in
 * schema comes before it (the highest, `kube-system-service-accounts`, is 900; `exempt`, `probes`
 * and the system ones are lower still), and so does an administrator's own schema below 8000.
 */
export const operatorMatchingPrecedence = 8000;

/**
 * A modest level. 10 shares against the built-in levels' 245 (system 30, node-high 40,
 * leader-election 10, workload-high 40, workload-low 100, global-default 20, catch-all 5) give it
 * 10/255 of the server's concurrency: about 24 seats of the default 600 (max-requests-inflight 400 +
 * max-mutating-requests-inflight 200), while the operator's own client limit (20 requests a second,
 * docs/scale.md) keeps a few in use. It lends half of them to busier levels while idle, and borrows
 * none (borrowingLimitPercent 0), so however many requests it makes it never holds more seats than
 * its own.
 */
const limited = {
  nominalConcurrencyShares: 10,
  lendablePercent: 50,
  borrowingLimitPercent: 0,
  limitResponse: {
    type: "Queue",
    // One ServiceAccount is one flow (ByUser), so more queues would stay empty: one queue holds the
    // operator's requests in arrival order. 50 waiting (as the built-in workload levels allow) cover
    // its client's burst of 30 and its informers' lists; beyond that the API server answers 429, which
    // the operator retries with backoff.
    queuing: { queues: 1, handSize: 1, queueLengthLimit: 50 },
  },
};

/** Every request: all verbs on every resource of every group, cluster-scoped or in any namespace, and every non-resource URL. */
const everyRequest = {
  resourceRules: [
    { verbs: ["*"], apiGroups: ["*"], resources: ["*"], clusterScope: true, namespaces: ["*"] },
  ],
  nonResourceRules: [{ verbs: ["*"], nonResourceURLs: ["*"] }],
};

/** Namespace-free: the subject's namespace is `""` until the bundle is placed (placeFlowSchema). */
export function flowControlObjects(labels: Record<string, string>, serviceAccount: string): BundleObject[] {
  const metadata = () => ({ name: serviceAccount, labels });
  return [
    {
      apiVersion: flowControlApiVersion,
      kind: "PriorityLevelConfiguration",
      metadata: metadata(),
      spec: { type: "Limited", limited },
    },
    {
      apiVersion: flowControlApiVersion,
      kind: "FlowSchema",
      metadata: metadata(),
      spec: {
        priorityLevelConfiguration: { name: serviceAccount },
        matchingPrecedence: operatorMatchingPrecedence,
        distinguisherMethod: { type: "ByUser" },
        rules: [
          {
            subjects: [{ kind: "ServiceAccount", serviceAccount: { name: serviceAccount, namespace: "" } }],
            ...everyRequest,
          },
        ],
      },
    },
  ];
}

interface FlowSchemaSpec {
  priorityLevelConfiguration: { name: string };
  rules?: { subjects?: { kind: string; serviceAccount?: { name: string; namespace: string } }[] }[];
}

/** The schema placed: it names its level as placed (`placedName`), and its ServiceAccount subjects are those of `namespace`. */
export function placeFlowSchema(
  object: BundleObject,
  placedName: (name: string) => string,
  namespace: string,
): BundleObject {
  const spec = object.spec as FlowSchemaSpec;
  return {
    ...object,
    spec: {
      ...spec,
      priorityLevelConfiguration: { name: placedName(spec.priorityLevelConfiguration.name) },
      rules: spec.rules?.map((rule) => ({
        ...rule,
        subjects: rule.subjects?.map((subject) =>
          subject.serviceAccount
            ? { ...subject, serviceAccount: { ...subject.serviceAccount, namespace } }
            : subject,
        ),
      })),
    },
  };
}
