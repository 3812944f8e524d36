import { useEffect, useState } from "react";
import { api, watchPath } from "../../api.ts";
import { Conditions, StreamProblem } from "../../components/Conditions.tsx";
import { DataTable } from "../../components/DataTable.tsx";
import { PhaseBadge } from "../../components/PhaseBadge.tsx";
import { phaseTone } from "../../components/phaseTone.ts";
import { messageOf, time } from "../../format.ts";
import { StepGraph } from "../../graph/StepGraph.tsx";
import { useLiveList } from "../../live/useLiveList.ts";
import { Link, useReportConnection } from "../../navigation.tsx";
import { detailHref, listHref } from "../../routes.ts";
import type { PipelineStep, RunStepView, RunView } from "../../views.ts";
import type { PageProps } from "../SectionPage.tsx";
import { pipelineGraphSteps, runGraphSteps, stepPhase } from "./runGraph.ts";
import { pipelineOfRun, runDuration, runState } from "./runState.ts";

export function RunDetail({ token, namespace, name, onSignOut }: PageProps & { name: string }) {
  const stream = useLiveList<RunView>(token, watchPath("runs", namespace, name), onSignOut);
  useReportConnection(stream.connection);
  const run = stream.items?.[0];
  return (
    <>
      <p>
        <Link href={listHref("runs", namespace)}>← Runs in {namespace}</Link>
      </p>
      <StreamProblem error={stream.items ? undefined : stream.error} what="this run" />
      {stream.items && !run && (
        <p className="notice">
          There is no Run {namespace}/{name} (a completed Run is deleted after its TTL).
        </p>
      )}
      {run && <RunSummary run={run} />}
      {run && <RunParameters run={run} />}
      {run && <RunSteps run={run} token={token} />}
      {run && <RunArtifacts run={run} />}
    </>
  );
}

function RunSummary({ run }: { run: RunView }) {
  const pipeline = pipelineOfRun(run);
  return (
    <section className="card" aria-labelledby="run-heading">
      <h2 id="run-heading">
        {run.namespace}/{run.name}
      </h2>
      <dl className="summary">
        <div>
          <dt>State</dt>
          <dd data-testid="state">
            <PhaseBadge phase={runState(run)} />
          </dd>
        </div>
        <div>
          <dt>Pipeline</dt>
          <dd>
            <Link href={detailHref("pipelines", run.namespace, pipeline)}>{run.spec.pipeline}</Link>
          </dd>
        </div>
        <div>
          <dt>Version</dt>
          <dd className="mono">{run.status?.version ?? "—"}</dd>
        </div>
        <div>
          <dt>Provider</dt>
          <dd>{run.spec.provider}</dd>
        </div>
        <div>
          <dt>Duration</dt>
          <dd>{runDuration(run, new Date())}</dd>
        </div>
        <div>
          <dt>Completed</dt>
          <dd>{time(run.status?.completedAt)}</dd>
        </div>
      </dl>
      <h3>Conditions</h3>
      <Conditions conditions={run.status?.conditions} />
    </section>
  );
}

function RunParameters({ run }: { run: RunView }) {
  const parameters = run.spec.parameters ?? [];
  return (
    <section className="card" aria-labelledby="run-parameters-heading">
      <h2 id="run-parameters-heading">Parameters</h2>
      {parameters.length === 0 ? (
        <p className="muted">None given: the pipeline's defaults apply.</p>
      ) : (
        <DataTable
          caption="Parameters"
          columns={[
            { header: "Name", cell: (parameter) => parameter.name },
            {
              header: "Value",
              cell: (parameter) => parameter.value ?? "(from a run configuration's artifact)",
              className: "mono",
            },
          ]}
          items={parameters}
          rowKey={(parameter) => parameter.name}
        />
      )}
    </section>
  );
}

/** The Pipeline's steps (read once: the graph of this Run), or why they could not be read. */
function usePipelineSteps(token: string, namespace: string, name: string) {
  const [read, setRead] = useState<{ steps?: PipelineStep[]; problem?: string }>({});
  useEffect(() => {
    let current = true;
    setRead({});
    api.pipeline(token, namespace, name).then(
      (pipeline) => current && setRead({ steps: pipeline.spec.steps }),
      (failure: unknown) => current && setRead({ problem: messageOf(failure) }),
    );
    return () => {
      current = false;
    };
  }, [token, namespace, name]);
  return read;
}

/**
 * Each step as the backend recorded it (Argo: the Workflow's node statuses): the Pipeline's step
 * graph with each node coloured by its step's phase, and a table; one step's log below, chosen in
 * either.
 */
function RunSteps({ run, token }: { run: RunView; token: string }) {
  const steps = run.status?.steps ?? [];
  const pipeline = pipelineOfRun(run);
  const declared = usePipelineSteps(token, run.namespace, pipeline);
  const [shown, setShown] = useState<string>();
  const step = steps.find((candidate) => candidate.name === shown);
  const graphSteps = runGraphSteps(pipelineGraphSteps(declared.steps ?? []), steps);
  const stateOf = (name: string) => {
    const phase = stepPhase(steps, name);
    return { label: phase, tone: phaseTone(phase) };
  };
  return (
    <section className="card" aria-labelledby="run-steps-heading">
      <h2 id="run-steps-heading">Steps</h2>
      {run.status?.failure && (
        <p className="notice" data-testid="failure">
          {run.status.failure}
        </p>
      )}
      {declared.problem && (
        <p className="muted">
          Cannot read Pipeline {pipeline} ({declared.problem}): the graph shows the recorded steps without
          their dependencies.
        </p>
      )}
      {(declared.steps || declared.problem) && graphSteps.length > 0 && (
        <StepGraph steps={graphSteps} stateOf={stateOf} onSelect={setShown} selected={shown} />
      )}
      {steps.length === 0 ? (
        <p className="muted">The backend reports no per-step state for this run yet.</p>
      ) : (
        <DataTable
          caption="Steps"
          columns={[
            { header: "Step", cell: (step) => step.name },
            { header: "Phase", cell: (step) => <PhaseBadge phase={step.phase} /> },
            { header: "Started", cell: (step) => time(step.startedAt) },
            { header: "Finished", cell: (step) => time(step.finishedAt) },
            { header: "Retries", cell: (step) => step.retries ?? 0 },
            { header: "Exit code", cell: (step) => step.exitCode ?? "—", className: "mono" },
            {
              header: "Cache",
              cell: (step) => (step.cacheHit === undefined ? "—" : step.cacheHit ? "hit" : "miss"),
            },
            { header: "Message", cell: (step) => step.message ?? "" },
            {
              header: "Log",
              cell: (step) => (
                <button type="button" onClick={() => setShown(step.name)} aria-pressed={shown === step.name}>
                  Log of {step.name}
                </button>
              ),
            },
          ]}
          items={steps}
          rowKey={(step) => step.name}
        />
      )}
      {step && <StepLog token={token} run={run} step={step} />}
      {shown && !step && (
        <>
          <h3>Log of step {shown}</h3>
          <p className="muted">Step {shown} has not started: it has no log yet.</p>
        </>
      )}
    </section>
  );
}

/** The step's log (its last attempt's), read again whenever the step's state changes. */
function StepLog({ token, run, step }: { token: string; run: RunView; step: RunStepView }) {
  const [log, setLog] = useState<{ text?: string; problem?: string }>({});
  // biome-ignore lint/correctness/useExhaustiveDependencies: read again when the step's phase or attempt changes
  useEffect(() => {
    let current = true;
    api.stepLog(token, run.namespace, run.name, step.name).then(
      (answer) => current && setLog({ text: answer.logs }),
      (failure: unknown) => current && setLog({ problem: messageOf(failure) }),
    );
    return () => {
      current = false;
    };
  }, [token, run.namespace, run.name, step.name, step.phase, step.retries]);
  return (
    <>
      <h3>Log of step {step.name}</h3>
      {log.problem && <p className="notice">{log.problem}</p>}
      {log.text !== undefined && (
        <pre className="log" role="log" aria-label={`Log of step ${step.name}`}>
          {log.text || "(nothing logged yet)"}
        </pre>
      )}
    </>
  );
}

function RunArtifacts({ run }: { run: RunView }) {
  const declared = run.spec.artifacts ?? [];
  const located = new Map(
    (run.status?.artifacts ?? []).map((artifact) => [artifact.name, artifact.location]),
  );
  return (
    <section className="card" aria-labelledby="artifacts-heading">
      <h2 id="artifacts-heading">Output artifacts</h2>
      {declared.length === 0 && located.size === 0 ? (
        <p className="muted">This run records no output artifacts.</p>
      ) : (
        <DataTable
          caption="Output artifacts"
          columns={[
            { header: "Name", cell: (artifact) => artifact.name },
            { header: "Step output", cell: (artifact) => artifact.path, className: "mono" },
            {
              header: "Location",
              cell: (artifact) => located.get(artifact.name) ?? "not yet recorded",
              className: "mono",
            },
          ]}
          items={declared}
          rowKey={(artifact) => artifact.name}
        />
      )}
    </section>
  );
}
