import { StreamProblem } from "../../components/Conditions.tsx";
import { type Column, DataTable } from "../../components/DataTable.tsx";
import { MoreRows } from "../../components/MoreRows.tsx";
import { PhaseBadge } from "../../components/PhaseBadge.tsx";
import { usePagedList } from "../../live/usePagedList.ts";
import { Link, useReportConnection } from "../../navigation.tsx";
import { detailHref } from "../../routes.ts";
import type { PipelineView } from "../../views.ts";
import type { PageProps } from "../SectionPage.tsx";

const pipelineColumns = (namespace: string): Column<PipelineView>[] => [
  {
    header: "Name",
    cell: (pipeline) => <Link href={detailHref("pipelines", namespace, pipeline.name)}>{pipeline.name}</Link>,
  },
  { header: "Provider", cell: (pipeline) => pipeline.spec.provider },
  { header: "State", cell: (pipeline) => <PhaseBadge phase={pipeline.status?.state ?? "Pending"} /> },
  { header: "Version", cell: (pipeline) => pipeline.status?.version ?? "—", className: "mono" },
  { header: "Steps", cell: (pipeline) => pipeline.spec.steps.length },
];

export function PipelinesList({ token, namespace, onSignOut }: PageProps) {
  const pipelines = usePagedList<PipelineView>(token, "pipelines", namespace, onSignOut);
  useReportConnection(pipelines.connection);
  return (
    <section className="card" aria-labelledby="pipelines-heading">
      <h2 id="pipelines-heading">Pipelines in {namespace}</h2>
      <StreamProblem error={pipelines.items ? undefined : pipelines.error} what="the pipelines" />
      {pipelines.items?.length === 0 && <p className="muted">No pipelines in this namespace yet.</p>}
      {pipelines.items && pipelines.items.length > 0 && (
        <DataTable
          caption="Pipelines"
          columns={pipelineColumns(namespace)}
          items={pipelines.items}
          rowKey={(pipeline) => pipeline.name}
        />
      )}
      <MoreRows shown={pipelines.items?.length ?? 0} remaining={pipelines.remaining} more={pipelines.more} />
    </section>
  );
}
