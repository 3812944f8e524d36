import { useState } from "react";
import { watchPath } from "../../api.ts";
import { StreamProblem } from "../../components/Conditions.tsx";
import { PhaseBadge } from "../../components/PhaseBadge.tsx";
import { span } from "../../format.ts";
import { useLiveList } from "../../live/useLiveList.ts";
import { Link, useReportConnection } from "../../navigation.tsx";
import { detailHref } from "../../routes.ts";
import type { BuildView } from "../../views.ts";
import type { PageProps } from "../SectionPage.tsx";
import { BuildForm } from "./BuildForm.tsx";

export function BuildsList({ token, namespace, onSignOut }: PageProps) {
  const builds = useLiveList<BuildView>(token, watchPath("imagebuilds", namespace), onSignOut);
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
          <div className="table-scroll">
            <table className="components">
              <caption className="visually-hidden">Image builds</caption>
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">Image</th>
                  <th scope="col">Phase</th>
                  <th scope="col">Reused</th>
                  <th scope="col">Age</th>
                </tr>
              </thead>
              <tbody>
                {builds.items.map((build) => (
                  <tr key={build.name} data-row={build.name}>
                    <th scope="row">
                      <Link href={detailHref("builds", namespace, build.name)}>{build.name}</Link>
                    </th>
                    <td className="mono">
                      {build.status?.image ??
                        `${build.spec.project}/${build.spec.name}:${build.spec.version}`}
                    </td>
                    <td>
                      <PhaseBadge phase={build.status?.phase ?? "Pending"} />
                    </td>
                    <td>{build.status?.reused === undefined ? "—" : build.status.reused ? "yes" : "no"}</td>
                    <td>{span(build.createdAt, now)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </section>
      {creating && <BuildForm token={token} namespace={namespace} />}
    </>
  );
}
