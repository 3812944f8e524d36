import { watchPath } from "../../api.ts";
import { StreamProblem } from "../../components/Conditions.tsx";
import { PhaseBadge } from "../../components/PhaseBadge.tsx";
import { useLiveList } from "../../live/useLiveList.ts";
import { Link, useReportConnection } from "../../navigation.tsx";
import { detailHref } from "../../routes.ts";
import type { PipelineView } from "../../views.ts";
import type { PageProps } from "../SectionPage.tsx";

export function PipelinesList({ token, namespace, onSignOut }: PageProps) {
  const pipelines = useLiveList<PipelineView>(token, watchPath("pipelines", namespace), onSignOut);
  useReportConnection(pipelines.connection);
  return (
    <section className="card" aria-labelledby="pipelines-heading">
      <h2 id="pipelines-heading">Pipelines in {namespace}</h2>
      <StreamProblem error={pipelines.items ? undefined : pipelines.error} what="the pipelines" />
      {pipelines.items?.length === 0 && <p className="muted">No pipelines in this namespace yet.</p>}
      {pipelines.items && pipelines.items.length > 0 && (
        <div className="table-scroll">
          <table className="components">
            <caption className="visually-hidden">Pipelines</caption>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Provider</th>
                <th scope="col">State</th>
                <th scope="col">Version</th>
                <th scope="col">Steps</th>
              </tr>
            </thead>
            <tbody>
              {pipelines.items.map((pipeline) => (
                <tr key={pipeline.name} data-row={pipeline.name}>
                  <th scope="row">
                    <Link href={detailHref("pipelines", namespace, pipeline.name)}>{pipeline.name}</Link>
                  </th>
                  <td>{pipeline.spec.provider}</td>
                  <td>
                    <PhaseBadge phase={pipeline.status?.state ?? "Pending"} />
                  </td>
                  <td className="mono">{pipeline.status?.version ?? "—"}</td>
                  <td>{pipeline.spec.steps.length}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
