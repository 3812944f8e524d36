import { watchPath } from "../../api.ts";
import { StreamProblem } from "../../components/Conditions.tsx";
import { PhaseBadge } from "../../components/PhaseBadge.tsx";
import { useLiveList } from "../../live/useLiveList.ts";
import { Link, useReportConnection } from "../../navigation.tsx";
import { detailHref } from "../../routes.ts";
import type { RunView } from "../../views.ts";
import type { PageProps } from "../SectionPage.tsx";
import { runDuration, runState } from "./runState.ts";
import { StartRun } from "./StartRun.tsx";

export function RunsList({ token, namespace, query, onSignOut }: PageProps) {
  const runs = useLiveList<RunView>(token, watchPath("runs", namespace), onSignOut);
  useReportConnection(runs.connection);
  const now = new Date();
  return (
    <>
      <section className="card" aria-labelledby="runs-heading">
        <h2 id="runs-heading">Runs in {namespace}</h2>
        <StreamProblem error={runs.items ? undefined : runs.error} what="the runs" />
        {runs.items?.length === 0 && <p className="muted">No runs in this namespace yet.</p>}
        {runs.items && runs.items.length > 0 && (
          <div className="table-scroll">
            <table className="components">
              <caption className="visually-hidden">Runs</caption>
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">Pipeline</th>
                  <th scope="col">Provider</th>
                  <th scope="col">State</th>
                  <th scope="col">Completion</th>
                  <th scope="col">Duration</th>
                </tr>
              </thead>
              <tbody>
                {runs.items.map((run) => (
                  <tr key={run.name} data-row={run.name}>
                    <th scope="row">
                      <Link href={detailHref("runs", namespace, run.name)}>{run.name}</Link>
                    </th>
                    <td className="mono">{run.spec.pipeline}</td>
                    <td>{run.spec.provider}</td>
                    <td>
                      <PhaseBadge phase={runState(run)} />
                    </td>
                    <td>{run.status?.completionState ?? "—"}</td>
                    <td>{runDuration(run, now)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </section>
      <StartRun token={token} namespace={namespace} pipeline={query.get("start") ?? undefined} />
    </>
  );
}
