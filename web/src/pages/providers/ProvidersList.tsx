import { useCallback, useEffect, useState } from "react";
import { type ApiError, api, watchPath } from "../../api.ts";
import { StreamProblem } from "../../components/Conditions.tsx";
import { type Column, DataTable } from "../../components/DataTable.tsx";
import { useLiveList } from "../../live/useLiveList.ts";
import { Link, useReportConnection } from "../../navigation.tsx";
import { detailHref, type Section } from "../../routes.ts";
import type { ProviderView } from "../../views.ts";
import type { PageProps } from "../SectionPage.tsx";

const pageOfKind: Record<string, Section | undefined> = { Pipeline: "pipelines", Run: "runs" };

export function ProvidersList({ token, namespace, onSignOut }: PageProps) {
  const [answer, setAnswer] = useState<{ items: ProviderView[]; hiddenKinds: string[] }>();
  const [error, setError] = useState<string>();
  const refresh = useCallback(() => {
    api.providers(token, namespace).then(
      (next) => {
        setAnswer(next);
        setError(undefined);
      },
      (failure: ApiError) => setError(failure.message),
    );
  }, [token, namespace]);
  // the stream says when a Provider changed; the list with each one's users is read again then
  const stream = useLiveList<ProviderView>(token, watchPath("providers", namespace), onSignOut, refresh);
  useReportConnection(stream.connection);
  useEffect(refresh, [refresh]);
  const items = answer?.items;
  return (
    <section className="card" aria-labelledby="providers-heading">
      <h2 id="providers-heading">Providers in {namespace}</h2>
      <StreamProblem error={items ? undefined : (error ?? stream.error)} what="the providers" />
      {items?.length === 0 && <p className="muted">No providers in this namespace.</p>}
      {answer && answer.hiddenKinds.length > 0 && (
        <p className="muted">
          You may not list {answer.hiddenKinds.join(", ")} here: their use is not counted.
        </p>
      )}
      {items && items.length > 0 && (
        <DataTable
          caption="Providers"
          columns={providerColumns}
          items={items}
          rowKey={(provider) => provider.name}
        />
      )}
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
  if (provider.usedBy.length === 0) return <span className="muted">nothing</span>;
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
