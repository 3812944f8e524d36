import { useEffect, useRef, useState } from "react";
import { buildLogPath, readEventStream, watchPath } from "../../api.ts";
import { Conditions, StreamProblem } from "../../components/Conditions.tsx";
import { PhaseBadge } from "../../components/PhaseBadge.tsx";
import { messageOf, time } from "../../format.ts";
import { pause, reconnectDelayMs } from "../../live/liveList.ts";
import { useLiveList } from "../../live/useLiveList.ts";
import { Link, useReportConnection } from "../../navigation.tsx";
import { listHref } from "../../routes.ts";
import type { BuildView } from "../../views.ts";
import type { PageProps } from "../SectionPage.tsx";

/** The least wait before following the log again (the build's status may not say yet that it ended). */
const logReconnectMs = 2000;

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

/** Follows the build pod's log (GET …/logs?follow=true): the text so far, and why it cannot be read. */
function useBuildLog(token: string, build: BuildView, hasJob: boolean) {
  const [log, setLog] = useState<string>();
  const [problem, setProblem] = useState<string>();
  const building = useRef(false);
  building.current = build.status?.phase === "Building";
  const job = build.status?.job?.name;
  useEffect(() => {
    if (!hasJob || !job) return;
    const controller = new AbortController();
    const { signal } = controller;
    const onEvent = ({ event, data }: { event: string; data: unknown }) => {
      setProblem(undefined);
      // each stream starts again from the log's tail: what it sends replaces what was shown
      if (event === "start") setLog("");
      if (event === "container")
        setLog((shown) => `${shown ?? ""}── ${(data as { name: string }).name} ──\n`);
      if (event === "log") setLog((shown) => `${shown ?? ""}${(data as { text: string }).text}`);
    };
    const follow = async () => {
      for (let attempt = 0; !signal.aborted; attempt++) {
        try {
          await readEventStream(buildLogPath(build.namespace, build.name), token, onEvent, signal);
          attempt = 0;
        } catch (failure) {
          if (signal.aborted) return;
          setProblem(messageOf(failure));
        }
        // the pod's log ended: a build still Building has a new pod (a retry) or the stream dropped
        if (!building.current) return;
        await pause(Math.max(logReconnectMs, reconnectDelayMs(attempt)), signal);
      }
    };
    void follow();
    return () => controller.abort();
  }, [token, build.namespace, build.name, hasJob, job]);
  return { log, problem };
}

/** The build pod's log, streamed while it builds: appended as it arrives, ending with the pod. */
function BuildLog({ token, build }: { token: string; build: BuildView }) {
  const view = useRef<HTMLPreElement>(null);
  const hasJob = Boolean(build.status?.job) && !build.status?.reused;
  const { log, problem } = useBuildLog(token, build, hasJob);
  // biome-ignore lint/correctness/useExhaustiveDependencies: keep the newest line in view as the log grows
  useEffect(() => {
    view.current?.scrollTo({ top: view.current.scrollHeight });
  }, [log]);
  return (
    <section className="card" aria-labelledby="log-heading">
      <h2 id="log-heading">Build log</h2>
      {!hasJob && (
        <p className="muted">
          {build.status?.reused ? "Nothing was built: the image already existed." : "No build Job yet."}
        </p>
      )}
      {problem && <p className="notice">{problem}</p>}
      {hasJob && log !== undefined && (
        <pre ref={view} className="log" role="log" aria-label="Build log" aria-live="polite">
          {log || "(nothing logged yet)"}
        </pre>
      )}
    </section>
  );
}
