/**
 * Whether an Argo workflow controller serves the namespace an argo Provider's Workflows are created
 * in (the Provider's own), pure. A Workflow no controller watches never starts, so an argo Provider
 * is Ready only when one does: the platform's Argo runs `--namespaced` to the platform's namespace,
 * and a team's Provider elsewhere must not say Ready while its Runs wait for nothing.
 *
 * What a controller serves, from Argo's `workflow-controller` command (cmd/workflow-controller/main.go,
 * argo-workflows v4): without `--namespaced` every namespace (`--managed-namespace` is then ignored);
 * with it, `--managed-namespace`, by default the controller's own namespace. Each flag may also be
 * given as an `ARGO_`-prefixed environment variable (ARGO_NAMESPACED, ARGO_MANAGED_NAMESPACE).
 */
import { componentLabels } from "../../platform/component-objects.ts";
import type { BackendReadiness } from "../backend.ts";

/** What a Deployment's pod template says, as far as telling an Argo workflow controller goes. */
export interface DeploymentView {
  metadata: { name?: string; namespace?: string; labels?: Record<string, string> };
  spec?: {
    template?: {
      spec?: {
        containers?: {
          image?: string;
          args?: string[];
          env?: { name: string; value?: string }[];
        }[];
      };
    };
  };
  status?: { availableReplicas?: number };
}

export interface WorkflowController {
  /** `namespace/name` of its Deployment. */
  deployment: string;
  /** The one namespace it watches; undefined: every namespace. */
  managedNamespace?: string;
  /** At least one replica is available. */
  available: boolean;
}

/**
 * The platform's workflow engine (src/platform/contracts.ts) is Argo's workflow-controller under the
 * component name `workflow-engine`; its image can be overridden, so its labels say what it is.
 */
const platformEngineLabels = componentLabels("workflow-engine");

/** Argo's image (quay.io/argoproj/workflow-controller), wherever it is mirrored: the last path segment. */
const argoControllerImage = /(^|\/)workflow-controller([:@]|$)/;

type Container = NonNullable<
  NonNullable<NonNullable<DeploymentView["spec"]>["template"]>["spec"]
>["containers"];

/** The value of `--flag`: `--flag=v`, `--flag v`; a bare boolean flag is "true". Undefined: not given. */
function flag(args: readonly string[], name: string, boolean: boolean): string | undefined {
  let value: string | undefined;
  args.forEach((arg, i) => {
    if (arg.startsWith(`--${name}=`)) value = arg.slice(name.length + 3);
    else if (arg === `--${name}`) value = boolean ? "true" : (args[i + 1] ?? "");
  });
  return value;
}

function controllerContainer(deployment: DeploymentView): NonNullable<Container>[number] | undefined {
  const containers = deployment.spec?.template?.spec?.containers ?? [];
  const labels = deployment.metadata.labels ?? {};
  const platformEngine = Object.entries(platformEngineLabels).every(([key, value]) => labels[key] === value);
  return platformEngine ? containers[0] : containers.find((c) => argoControllerImage.test(c.image ?? ""));
}

/** The Argo workflow controller a Deployment runs, or undefined when it runs none. */
export function workflowControllerOf(deployment: DeploymentView): WorkflowController | undefined {
  const container = controllerContainer(deployment);
  if (!container) return undefined;
  const namespace = deployment.metadata.namespace ?? "";
  const args = container.args ?? [];
  const env = (name: string) => container.env?.find((e) => e.name === name)?.value;
  const namespaced = (flag(args, "namespaced", true) ?? env("ARGO_NAMESPACED")) === "true";
  const managed = flag(args, "managed-namespace", false) ?? env("ARGO_MANAGED_NAMESPACE") ?? "";
  return {
    deployment: `${namespace}/${deployment.metadata.name ?? ""}`,
    ...(namespaced ? { managedNamespace: managed || namespace } : {}),
    available: (deployment.status?.availableReplicas ?? 0) > 0,
  };
}

export interface ControllerObservation {
  /** The Argo workflow controllers found (in the namespace the Workflows go to). */
  controllers: readonly WorkflowController[];
  /**
   * Namespaces the operator's installer says an Argo workflow controller elsewhere serves
   * (`*`: every namespace, a cluster-wide Argo), which a look in the namespace cannot find.
   */
  declared: readonly string[];
}

/** Ready when an available controller serves `namespace`, else why not (naming the namespace and what is missing). */
export function workflowControllerReadiness(
  namespace: string,
  observation: ControllerObservation,
  setting: string,
): BackendReadiness {
  if (observation.declared.includes("*") || observation.declared.includes(namespace)) {
    return {
      ready: true,
      message: `Argo Workflows is installed; a workflow controller serves namespace ${namespace} (${setting})`,
    };
  }
  const serving = observation.controllers.filter(
    (c) => c.managedNamespace === undefined || c.managedNamespace === namespace,
  );
  const available = serving.find((c) => c.available);
  if (available) {
    return {
      ready: true,
      message: `Argo Workflows is installed; the workflow controller ${available.deployment} serves namespace ${namespace}`,
    };
  }
  if (serving.length) {
    return {
      ready: false,
      message: `the workflow controller ${serving.map((c) => c.deployment).join(", ")} serving namespace ${namespace} has no available replica: Workflows there would not start`,
    };
  }
  const elsewhere = observation.controllers.map((c) => `${c.deployment} serves only ${c.managedNamespace}`);
  return {
    ready: false,
    message:
      `no Argo workflow controller serves namespace ${namespace}, where this Provider's Workflows are created` +
      `${elsewhere.length ? ` (${elsewhere.join("; ")})` : ""}: Workflows there would never start. ` +
      `Use a Provider in a namespace a workflow controller serves (the platform's), run one for ${namespace}, ` +
      `or, for an Argo installed to serve it from elsewhere, list the namespace in ${setting}`,
  };
}
