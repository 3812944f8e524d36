import { useCallback, useState } from "react";
import { stepDependencies } from "../../../../src/pipelines/step-io.ts";
import { api, watchPath } from "../../api.ts";
import { Conditions, StreamProblem } from "../../components/Conditions.tsx";
import { type Column, DataTable } from "../../components/DataTable.tsx";
import { PhaseBadge } from "../../components/PhaseBadge.tsx";
import { time } from "../../format.ts";
import { StepGraph } from "../../graph/StepGraph.tsx";
import { useLiveList } from "../../live/useLiveList.ts";
import { Link, useReportConnection } from "../../navigation.tsx";
import { listHref } from "../../routes.ts";
import type { HistoryView, PipelineStep, PipelineView } from "../../views.ts";
import { pipelineGraphSteps } from "../runs/runGraph.ts";
import type { PageProps } from "../SectionPage.tsx";

export function PipelineDetail({ token, namespace, name, onSignOut }: PageProps & { name: string }) {
  const [history, setHistory] = useState<HistoryView>();
  const readHistory = useCallback(() => {
    api.history(token, namespace, name).then(setHistory, () => setHistory(undefined));
  }, [token, namespace, name]);
  // the history is read again whenever the Pipeline changes (a new version is a status change)
  const stream = useLiveList<PipelineView>(
    token,
    watchPath("pipelines", namespace, name),
    onSignOut,
    readHistory,
  );
  useReportConnection(stream.connection);
  const pipeline = stream.items?.[0];
  return (
    <>
      <p>
        <Link href={listHref("pipelines", namespace)}>← Pipelines in {namespace}</Link>
      </p>
      <StreamProblem error={stream.items ? undefined : stream.error} what="this pipeline" />
      {stream.items && !pipeline && (
        <p className="notice">
          There is no Pipeline {namespace}/{name}.
        </p>
      )}
      {pipeline && <PipelineSummary pipeline={pipeline} />}
      {pipeline && <Steps pipeline={pipeline} />}
      {pipeline && <PipelineParameters pipeline={pipeline} />}
      {pipeline && <History history={history} />}
    </>
  );
}

function PipelineSummary({ pipeline }: { pipeline: PipelineView }) {
  return (
    <section className="card" aria-labelledby="pipeline-heading">
      <div className="card-head">
        <h2 id="pipeline-heading">
          {pipeline.namespace}/{pipeline.name}
        </h2>
        <Link href={listHref("runs", pipeline.namespace, { start: pipeline.name })}>Start a run</Link>
      </div>
      <dl className="summary">
        <div>
          <dt>State</dt>
          <dd data-testid="state">
            <PhaseBadge phase={pipeline.status?.state ?? "Pending"} />
          </dd>
        </div>
        <div>
          <dt>Provider</dt>
          <dd>{pipeline.spec.provider}</dd>
        </div>
        <div>
          <dt>Version</dt>
          <dd className="mono">{pipeline.status?.version ?? "—"}</dd>
        </div>
        <div>
          <dt>Default image</dt>
          <dd className="mono">{pipeline.spec.image ?? "—"}</dd>
        </div>
      </dl>
      <h3>Conditions</h3>
      <Conditions conditions={pipeline.status?.conditions} />
    </section>
  );
}

const stepColumns = (image: string | undefined): Column<PipelineStep>[] => [
  { header: "Step", cell: (step) => step.name },
  { header: "Image", cell: (step) => step.image ?? image ?? "—", className: "mono" },
  {
    header: "Command",
    cell: (step) => [...(step.command ?? []), ...(step.args ?? [])].join(" ") || "—",
    className: "mono",
  },
  { header: "Runs after", cell: (step) => stepDependencies(step).join(", ") || "—" },
];

function Steps({ pipeline }: { pipeline: PipelineView }) {
  return (
    <section className="card" aria-labelledby="steps-heading">
      <h2 id="steps-heading">Steps</h2>
      <StepGraph steps={pipelineGraphSteps(pipeline.spec.steps)} />
      <DataTable
        caption="Steps"
        columns={stepColumns(pipeline.spec.image)}
        items={pipeline.spec.steps}
        rowKey={(step) => step.name}
      />
    </section>
  );
}

function PipelineParameters({ pipeline }: { pipeline: PipelineView }) {
  const parameters = pipeline.spec.parameters ?? [];
  return (
    <section className="card" aria-labelledby="parameters-heading">
      <h2 id="parameters-heading">Parameters</h2>
      {parameters.length === 0 ? (
        <p className="muted">This pipeline takes no parameters.</p>
      ) : (
        <DataTable
          caption="Parameters"
          columns={[
            { header: "Name", cell: (parameter) => parameter.name },
            { header: "Default", cell: (parameter) => parameter.default ?? "(required)", className: "mono" },
          ]}
          items={parameters}
          rowKey={(parameter) => parameter.name}
        />
      )}
    </section>
  );
}

function History({ history }: { history: HistoryView | undefined }) {
  return (
    <section className="card" aria-labelledby="history-heading">
      <h2 id="history-heading">Version history</h2>
      {!history && <p className="muted">Loading…</p>}
      {history && !history.eventsVisible && (
        <p className="muted">You may not list Events here: only the current version is known.</p>
      )}
      {history && (
        <p>
          Current version <code>{history.current.version ?? "none yet"}</code>
        </p>
      )}
      {history && history.entries.length > 0 && (
        <ol className="history">
          {history.entries.map((entry) => (
            <li key={`${entry.at}-${entry.message}`} className={entry.warning ? "history-bad" : undefined}>
              <time>{time(entry.at)}</time> <strong>{entry.state}</strong>
              {entry.version && (
                <>
                  {" "}
                  version <code>{entry.version}</code>
                </>
              )}{" "}
              — {entry.message}
            </li>
          ))}
        </ol>
      )}
    </section>
  );
}
