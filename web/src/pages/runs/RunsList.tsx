import { StreamProblem } from "../../components/Conditions.tsx";
import { type Column, DataTable } from "../../components/DataTable.tsx";
import { MoreRows } from "../../components/MoreRows.tsx";
import { PhaseBadge } from "../../components/PhaseBadge.tsx";
import { usePagedList } from "../../live/usePagedList.ts";
import { Link, useReportConnection } from "../../navigation.tsx";
import { detailHref } from "../../routes.ts";
import type { RunView } from "../../views.ts";
import type { PageProps } from "../SectionPage.tsx";
import { runDuration, runState } from "./runState.ts";
import { StartRun } from "./StartRun.tsx";

const runColumns = (namespace: string, now: Date): Column<RunView>[] => [
  { header: "Name", cell: (run) => <Link href={detailHref("runs", namespace, run.name)}>{run.name}</Link> },
  { header: "Pipeline", cell: (run) => run.spec.pipeline, className: "mono" },
  { header: "Provider", cell: (run) => run.spec.provider },
  { header: "State", cell: (run) => <PhaseBadge phase={runState(run)} /> },
  { header: "Completion", cell: (run) => run.status?.completionState ?? "—" },
  { header: "Duration", cell: (run) => runDuration(run, now) },
];

export function RunsList({ token, namespace, query, onSignOut }: PageProps) {
  const runs = usePagedList<RunView>(token, "runs", namespace, onSignOut);
  useReportConnection(runs.connection);
  const now = new Date();
  return (
    <>
      <section className="card" aria-labelledby="runs-heading">
        <h2 id="runs-heading">Runs in {namespace}</h2>
        <StreamProblem error={runs.items ? undefined : runs.error} what="the runs" />
        {runs.items?.length === 0 && <p className="muted">No runs in this namespace yet.</p>}
        {runs.items && runs.items.length > 0 && (
          <DataTable
            caption="Runs"
            columns={runColumns(namespace, now)}
            items={runs.items}
            rowKey={(run) => run.name}
          />
        )}
        <MoreRows shown={runs.items?.length ?? 0} remaining={runs.remaining} more={runs.more} />
      </section>
      <StartRun token={token} namespace={namespace} pipeline={query.get("start") ?? undefined} />
    </>
  );
}
