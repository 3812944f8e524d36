/**
 * A Run step's log, as the caller: the `main` container of the pod that ran the step's last attempt
 * (argo: src/pipelines/argo/step-pods.ts), found among the pods of the Run's Workflow in its
 * Provider's namespace. The caller needs `get` on the Run and `list` pods and `get` pods/log where
 * the Workflow runs; the kfp and vertex backends keep their step logs in their own consoles.
 */
import type { V1Pod } from "@kubernetes/client-node";
import { type Static, Type } from "@sinclair/typebox";
import type { FastifyInstance } from "fastify";
import { resourceTypeOf } from "../../apis/kind.ts";
import { RunKind } from "../../apis/pipelines/run.ts";
import type { RestClient } from "../../kube/rest.ts";
import { stepContainer, stepPod, workflowPodLabel } from "../../pipelines/argo/step-pods.ts";
import { providerKey } from "../../pipelines/provider-ref.ts";
import { readObject } from "../caller-reads.ts";
import { errorResponses, HttpError, notFoundAs } from "../errors.ts";
import { Name, Namespace } from "../params.ts";
import { containerLogTail, LogsView, listPods } from "../pod-log.ts";

const StepParams = Type.Object({ namespace: Namespace, name: Name, step: Name });

type RunRecord = {
  spec?: { pipeline?: string };
  status?: { provider?: { name?: string; id?: string }; steps?: { name: string }[] };
};

async function stepLogs(rest: RestClient, params: Static<typeof StepParams>) {
  const { namespace, name, step } = params;
  const run = await readObject<RunRecord>(rest, resourceTypeOf(RunKind), namespace, name).catch(
    notFoundAs(`Run ${namespace}/${name}`),
  );
  const what = `step ${step} of Run ${namespace}/${name}`;
  if (!run.status?.steps?.some((known) => known.name === step))
    throw new HttpError(404, `the backend has recorded no ${what}`);
  const workflow = run.status.provider?.id;
  const provider = run.status.provider?.name;
  if (!workflow || !provider) throw new HttpError(404, `Run ${namespace}/${name} has not been submitted`);
  const where = providerKey(provider, namespace).namespace;
  const pods = await listPods(rest, where, { labelSelector: `${workflowPodLabel}=${workflow}` });
  const pod = stepPod(pods.items, workflow, step);
  if (!pod?.metadata?.name)
    throw new HttpError(
      404,
      `no pod in namespace ${where} ran the ${what} (only argo Runs have pods here, and Argo may have deleted them)`,
    );
  return containerLogTail(
    rest,
    pod as V1Pod & { metadata: { name: string; namespace: string } },
    stepContainer,
  );
}

export function stepLogsRoute(app: FastifyInstance): void {
  app.get<{ Params: Static<typeof StepParams> }>(
    "/namespaces/:namespace/runs/:name/steps/:step/logs",
    {
      schema: {
        summary:
          "The last 1000 lines of a Run step's log (argo: the main container of the pod of its last attempt)",
        tags: ["pipelines"],
        params: StepParams,
        response: { 200: LogsView, ...errorResponses(400, 401, 403, 404) },
      },
    },
    (request) => stepLogs(request.rest, request.params),
  );
}
