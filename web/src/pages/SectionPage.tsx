import type { Route, Section } from "../routes.ts";
import { sectionTitle } from "../routes.ts";
import { BuildDetail } from "./builds/BuildDetail.tsx";
import { BuildsList } from "./builds/BuildsList.tsx";
import { PipelineDetail } from "./pipelines/PipelineDetail.tsx";
import { PipelinesList } from "./pipelines/PipelinesList.tsx";
import { ProvidersList } from "./providers/ProvidersList.tsx";
import { RunDetail } from "./runs/RunDetail.tsx";
import { RunsList } from "./runs/RunsList.tsx";

export interface PageProps {
  token: string;
  namespace: string;
  query: URLSearchParams;
  onSignOut: () => void;
}

interface SectionProps {
  token: string;
  route: Extract<Route, { page: Section }>;
  /** The namespaces the picker offers (undefined while loading). */
  offered: string[] | undefined;
  onSignOut: () => void;
}

/** A section's list or detail page in the chosen namespace; an empty state when the user may list none. */
export function SectionPage({ token, route, offered, onSignOut }: SectionProps) {
  const { namespace, name, page, query } = route;
  if (!namespace) {
    if (offered?.length === 0)
      return (
        <section className="card empty" aria-labelledby="empty-heading">
          <h2 id="empty-heading">No namespace to show</h2>
          <p>
            Your Kubernetes user may not list {sectionTitle[page].toLowerCase()} in any namespace. Ask a
            platform administrator for a RoleBinding, or open a link that names the namespace (
            <code>?namespace=…</code>).
          </p>
        </section>
      );
    return <p className="muted">Looking for the namespaces you may use…</p>;
  }
  const props = { token, namespace, query, onSignOut };
  if (page === "builds") return name ? <BuildDetail {...props} name={name} /> : <BuildsList {...props} />;
  if (page === "pipelines")
    return name ? <PipelineDetail {...props} name={name} /> : <PipelinesList {...props} />;
  if (page === "runs") return name ? <RunDetail {...props} name={name} /> : <RunsList {...props} />;
  return <ProvidersList {...props} />;
}
