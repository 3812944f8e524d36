import { StreamProblem } from "../../components/Conditions.tsx";
import { type Column, DataTable } from "../../components/DataTable.tsx";
import { MoreRows } from "../../components/MoreRows.tsx";
import { usePagedList } from "../../live/usePagedList.ts";
import { Link, useReportConnection } from "../../navigation.tsx";
import { detailHref, type Section } from "../../routes.ts";
import type { ProviderView } from "../../views.ts";
import type { PageProps } from "../SectionPage.tsx";

const pageOfKind: Record<string, Section | undefined> = { Pipeline: "pipelines", Run: "runs" };

export function ProvidersList({ token, namespace, onSignOut }: PageProps) {
  // the resources using each Provider come with the page: when a Provider changes, it is read again
  const providers = usePagedList<ProviderView>(token, "providers", namespace, onSignOut, () =>
    providers.reload(),
  );
  useReportConnection(providers.connection);
  const items = providers.items;
  const hiddenKinds = (providers.first as { hiddenKinds?: string[] } | undefined)?.hiddenKinds ?? [];
  return (
    <section className="card" aria-labelledby="providers-heading">
      <h2 id="providers-heading">Providers in {namespace}</h2>
      <StreamProblem error={items ? undefined : providers.error} what="the providers" />
      {items?.length === 0 && <p className="muted">No providers in this namespace.</p>}
      {hiddenKinds.length > 0 && (
        <p className="muted">You may not list {hiddenKinds.join(", ")} here: their use is not counted.</p>
      )}
      {items && items.length > 0 && (
        <DataTable
          caption="Providers"
          columns={providerColumns}
          items={items}
          rowKey={(provider) => provider.name}
        />
      )}
      <MoreRows shown={items?.length ?? 0} remaining={providers.remaining} more={providers.more} />
    </section>
  );
}

function Ready({ provider }: { provider: ProviderView }) {
  const ready = provider.status?.conditions?.find((condition) => condition.type === "Ready");
  return (
    <>
      <span className={`badge badge-${ready?.status === "True" ? "good" : ready ? "bad" : "idle"}`}>
        {ready ? (ready.status === "True" ? "Ready" : "Not ready") : "Unknown"}
      </span>
      {ready?.message && <div className="muted">{ready.message}</div>}
    </>
  );
}

function UsedBy({ provider }: { provider: ProviderView }) {
  // a change told live has no users until the page is read again
  if (!provider.usedBy?.length) return <span className="muted">nothing</span>;
  return (
    <ul className="plain">
      {provider.usedBy.map((user) => {
        const page = pageOfKind[user.kind];
        const label = `${user.kind} ${user.name}`;
        return (
          <li key={label}>
            {page ? <Link href={detailHref(page, provider.namespace, user.name)}>{label}</Link> : label}
          </li>
        );
      })}
    </ul>
  );
}

const providerColumns: Column<ProviderView>[] = [
  { header: "Name", cell: (provider) => provider.name },
  { header: "Type", cell: (provider) => provider.spec.type },
  { header: "Ready", cell: (provider) => <Ready provider={provider} /> },
  {
    header: "Allowed namespaces",
    cell: (provider) => provider.spec.allowedNamespaces?.join(", ") || "only its own",
  },
  { header: "Used by", cell: (provider) => <UsedBy provider={provider} /> },
];
