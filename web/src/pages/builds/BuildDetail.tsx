import { useEffect, useRef, useState } from "react";
import { type ApiError, api, watchPath } from "../../api.ts";
import { Conditions, StreamProblem } from "../../components/Conditions.tsx";
import { PhaseBadge } from "../../components/PhaseBadge.tsx";
import { time } from "../../format.ts";
import { useLiveList } from "../../live/useLiveList.ts";
import { Link, useReportConnection } from "../../navigation.tsx";
import { listHref } from "../../routes.ts";
import type { BuildView } from "../../views.ts";
import type { PageProps } from "../SectionPage.tsx";

const logPollMs = 2000;

function duration(start: string | undefined, end: string | undefined): string {
  if (!start || !end) return "—";
  return `${Math.round((new Date(end).getTime() - new Date(start).getTime()) / 1000)}s`;
}

export function BuildDetail({ token, namespace, name, onSignOut }: PageProps & { name: string }) {
  const stream = useLiveList<BuildView>(token, watchPath("imagebuilds", namespace, name), onSignOut);
  useReportConnection(stream.connection);
  const build = stream.items?.[0];
  return (
    <>
      <p>
        <Link href={listHref("builds", namespace)}>← Builds in {namespace}</Link>
      </p>
      <StreamProblem error={stream.items ? undefined : stream.error} what="this build" />
      {stream.items && !build && (
        <p className="notice">
          There is no ImageBuild {namespace}/{name}.
        </p>
      )}
      {build && <BuildSummary build={build} />}
      {build && <BuildLog token={token} build={build} />}
    </>
  );
}

function BuildSummary({ build }: { build: BuildView }) {
  const status = build.status ?? {};
  const condition = status.conditions?.find((entry) => entry.type === "Ready") ?? status.conditions?.[0];
  return (
    <section className="card" aria-labelledby="build-heading">
      <h2 id="build-heading">
        {build.namespace}/{build.name}
      </h2>
      <dl className="summary">
        <div>
          <dt>Phase</dt>
          <dd data-testid="phase">
            <PhaseBadge phase={status.phase ?? "Pending"} />
          </dd>
        </div>
        <div>
          <dt>Reused or built</dt>
          <dd>{status.reused === undefined ? "—" : status.reused ? "Reused (already existed)" : "Built"}</dd>
        </div>
        <div>
          <dt>Attempts</dt>
          <dd>{status.attempts ?? "—"}</dd>
        </div>
        <div>
          <dt>Duration</dt>
          <dd>{duration(status.startedAt, status.completedAt)}</dd>
        </div>
      </dl>
      <dl className="details">
        <dt>Image</dt>
        <dd className="mono" data-testid="image">
          {status.image ?? "—"}
        </dd>
        <dt>Digest</dt>
        <dd className="mono">{status.digest ?? "—"}</dd>
        <dt>Started</dt>
        <dd>{time(status.startedAt)}</dd>
        <dt>Completed</dt>
        <dd>{time(status.completedAt)}</dd>
        <dt>Artifact</dt>
        <dd className="mono">{build.spec.artifactUri}</dd>
        <dt>Reason</dt>
        <dd>{condition?.reason ?? "—"}</dd>
        <dt>Message</dt>
        <dd>{condition?.message ?? status.message ?? "—"}</dd>
      </dl>
      <h3>Conditions</h3>
      <Conditions conditions={status.conditions} />
    </section>
  );
}

/** The build container's log: read again every 2 s while the build runs, once more when it ends. */
function BuildLog({ token, build }: { token: string; build: BuildView }) {
  const [logs, setLogs] = useState<string>();
  const [problem, setProblem] = useState<string>();
  const view = useRef<HTMLPreElement>(null);
  const phase = build.status?.phase;
  const hasJob = Boolean(build.status?.job) && !build.status?.reused;
  useEffect(() => {
    if (!hasJob) return;
    let stopped = false;
    const read = () =>
      api.buildLogs(token, build.namespace, build.name).then(
        (answer) => {
          if (stopped) return;
          setLogs(answer.logs);
          setProblem(undefined);
        },
        (failure: ApiError) => {
          if (!stopped) setProblem(failure.message);
        },
      );
    void read();
    const timer = phase === "Building" ? setInterval(read, logPollMs) : undefined;
    return () => {
      stopped = true;
      clearInterval(timer);
    };
  }, [token, build.namespace, build.name, phase, hasJob]);
  // biome-ignore lint/correctness/useExhaustiveDependencies: keep the newest line in view as the log grows
  useEffect(() => {
    view.current?.scrollTo({ top: view.current.scrollHeight });
  }, [logs]);
  return (
    <section className="card" aria-labelledby="log-heading">
      <h2 id="log-heading">Build log</h2>
      {!hasJob && (
        <p className="muted">
          {build.status?.reused ? "Nothing was built: the image already existed." : "No build Job yet."}
        </p>
      )}
      {problem && <p className="notice">{problem}</p>}
      {hasJob && logs !== undefined && (
        <pre ref={view} className="log" role="log" aria-label="Build log" aria-live="polite">
          {logs || "(nothing logged yet)"}
        </pre>
      )}
    </section>
  );
}
