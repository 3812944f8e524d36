import { useState } from "react";
import { StreamProblem } from "../../components/Conditions.tsx";
import { type Column, DataTable } from "../../components/DataTable.tsx";
import { MoreRows } from "../../components/MoreRows.tsx";
import { PhaseBadge } from "../../components/PhaseBadge.tsx";
import { span } from "../../format.ts";
import { usePagedList } from "../../live/usePagedList.ts";
import { Link, useReportConnection } from "../../navigation.tsx";
import { detailHref } from "../../routes.ts";
import type { BuildView } from "../../views.ts";
import type { PageProps } from "../SectionPage.tsx";
import { BuildForm } from "./BuildForm.tsx";

const buildColumns = (namespace: string, now: Date): Column<BuildView>[] => [
  {
    header: "Name",
    cell: (build) => <Link href={detailHref("builds", namespace, build.name)}>{build.name}</Link>,
  },
  {
    header: "Image",
    cell: (build) => build.status?.image ?? `${build.spec.project}/${build.spec.name}:${build.spec.version}`,
    className: "mono",
  },
  { header: "Phase", cell: (build) => <PhaseBadge phase={build.status?.phase ?? "Pending"} /> },
  {
    header: "Reused",
    cell: (build) => (build.status?.reused === undefined ? "—" : build.status.reused ? "yes" : "no"),
  },
  { header: "Age", cell: (build) => span(build.createdAt, now) },
];

export function BuildsList({ token, namespace, onSignOut }: PageProps) {
  const builds = usePagedList<BuildView>(token, "imagebuilds", namespace, onSignOut);
  useReportConnection(builds.connection);
  const [creating, setCreating] = useState(false);
  const now = new Date();
  return (
    <>
      <section className="card" aria-labelledby="builds-heading">
        <div className="card-head">
          <h2 id="builds-heading">Image builds in {namespace}</h2>
          <button type="button" onClick={() => setCreating((open) => !open)} aria-expanded={creating}>
            {creating ? "Close the form" : "New build"}
          </button>
        </div>
        <StreamProblem error={builds.items ? undefined : builds.error} what="the builds" />
        {builds.items?.length === 0 && <p className="muted">No image builds in this namespace yet.</p>}
        {builds.items && builds.items.length > 0 && (
          <DataTable
            caption="Image builds"
            columns={buildColumns(namespace, now)}
            items={builds.items}
            rowKey={(build) => build.name}
          />
        )}
        <MoreRows shown={builds.items?.length ?? 0} remaining={builds.remaining} more={builds.more} />
      </section>
      {creating && <BuildForm token={token} namespace={namespace} />}
    </>
  );
}
