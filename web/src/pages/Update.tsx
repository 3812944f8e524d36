import { type FormEvent, useEffect, useRef, useState } from "react";
import { ApiError, api, type UpdatePreview, type VersionsView } from "../api.ts";
import { PhaseBadge } from "../components/PhaseBadge.tsx";
import { UpdatePreviewView } from "../components/UpdatePreview.tsx";
import type { UpdateFollow } from "../updateLog.ts";
import type { PlatformState } from "../usePlatform.ts";

interface UpdateProps {
  token: string;
  state: PlatformState;
  follow: UpdateFollow | undefined;
  onStarted: (target: string, from: string | undefined) => void;
}

/** Starting an update: whether one is being started and the last error (403 said plainly). */
function useStartUpdate(token: string, onStarted: UpdateProps["onStarted"]) {
  const [error, setError] = useState<string>();
  const [starting, setStarting] = useState(false);
  const start = async (version: string, from: string | undefined) => {
    setStarting(true);
    setError(undefined);
    try {
      const answer = await api.update(token, version);
      onStarted(answer.to, answer.from ?? from);
    } catch (failure) {
      const status = failure instanceof ApiError ? failure.status : 0;
      const prefix = status === 403 ? "You may not update this Platform: " : "";
      setError(prefix + (failure as Error).message);
    } finally {
      setStarting(false);
    }
  };
  return { error, setError, starting, start };
}

/** Previewing an update (a dry run): the preview, whether one is loading, and the last error (403 said plainly). */
function usePreview(token: string) {
  const [preview, setPreview] = useState<UpdatePreview>();
  const [error, setError] = useState<string>();
  const [loading, setLoading] = useState(false);
  const load = async (version: string) => {
    setLoading(true);
    setError(undefined);
    setPreview(undefined);
    try {
      setPreview(await api.updatePreview(token, version));
    } catch (failure) {
      const status = failure instanceof ApiError ? failure.status : 0;
      const prefix = status === 403 ? "You may not preview this update: " : "";
      setError(prefix + (failure as Error).message);
    } finally {
      setLoading(false);
    }
  };
  return { preview, error, loading, load };
}

export function Update({ token, state, follow, onStarted }: UpdateProps) {
  const [versions, setVersions] = useState<VersionsView>();
  const [choice, setChoice] = useState<string>();
  const { error, setError, starting, start: startUpdate } = useStartUpdate(token, onStarted);
  const preview = usePreview(token);
  const platform = state.platform;

  // The catalog's view of what is current changes when an update completes.
  const running = platform?.version;
  // biome-ignore lint/correctness/useExhaustiveDependencies: reload when the running version changes
  useEffect(() => {
    api.versions(token).then(setVersions, (failure: Error) => setError(failure.message));
  }, [token, running]);

  const start = (event: FormEvent) => {
    event.preventDefault();
    if (!selected) return setError("Choose a version first.");
    void startUpdate(selected, platform?.version);
  };

  const busy = follow?.outcome === "following";
  // A choice that is no longer an upgrade (e.g. it is now the running version) is dropped.
  const requested = platform?.desiredVersion !== platform?.version ? platform?.desiredVersion : undefined;
  const offered = versions?.versions.find(
    (entry) => entry.version === choice && entry.upgrade && entry.version !== requested,
  );
  const selected = offered ? choice : undefined;
  return (
    <>
      <section aria-labelledby="versions-heading" className="card">
        <h2 id="versions-heading">Update the platform</h2>
        {platform && (
          <p>
            Now running <strong>{platform.version ?? "—"}</strong> <PhaseBadge phase={platform.phase} />
          </p>
        )}
        {!versions && !error && <p className="muted">Loading the available versions…</p>}
        {versions && (
          <form onSubmit={start}>
            <fieldset>
              <legend>Available versions</legend>
              {versions.versions.map((entry) => (
                <VersionOption
                  key={entry.version}
                  entry={entry}
                  requested={entry.version === requested}
                  selected={selected === entry.version}
                  onChoose={setChoice}
                />
              ))}
            </fieldset>
            <button type="submit" disabled={!selected || starting || busy}>
              {starting ? "Starting…" : selected ? `Update to ${selected}` : "Start update"}
            </button>{" "}
            <button
              type="button"
              disabled={!selected || preview.loading}
              onClick={() => selected && void preview.load(selected)}
            >
              {preview.loading ? "Previewing…" : "Preview changes"}
            </button>
          </form>
        )}
        {error && (
          <p className="error" role="alert">
            {error}
          </p>
        )}
        {preview.error && (
          <p className="error" role="alert">
            {preview.error}
          </p>
        )}
      </section>
      {preview.preview && !follow && <UpdatePreviewView preview={preview.preview} />}
      {follow && <Progress follow={follow} />}
    </>
  );
}

/** The update being followed: its outcome so far and its live log. */
function Progress({ follow }: { follow: UpdateFollow }) {
  return (
    <section aria-labelledby="log-heading" className="card">
      <h2 id="log-heading">Update to {follow.target}</h2>
      <Outcome follow={follow} />
      <Log follow={follow} />
    </section>
  );
}

type VersionEntry = VersionsView["versions"][number];

interface VersionOptionProps {
  entry: VersionEntry;
  /** The version the platform is already moving to. */
  requested: boolean;
  selected: boolean;
  onChoose: (version: string) => void;
}

function VersionOption({ entry, requested, selected, onChoose }: VersionOptionProps) {
  const downgrade = !entry.current && !entry.upgrade;
  return (
    <label className={`version${downgrade ? " disabled" : ""}`}>
      <input
        type="radio"
        name="version"
        value={entry.version}
        checked={selected}
        disabled={entry.current || downgrade || requested}
        onChange={() => onChoose(entry.version)}
      />
      <span className="version-number">{entry.version}</span>
      {entry.current && <span className="tag">current</span>}
      {entry.upgrade && !requested && <span className="tag tag-new">upgrade</span>}
      {requested && <span className="tag">requested — the platform is moving to it</span>}
      {downgrade && <span className="tag">downgrade — not offered here</span>}
    </label>
  );
}

function Log({ follow }: { follow: UpdateFollow }) {
  const list = useRef<HTMLOListElement>(null);
  // Keep the newest line in view as the log grows.
  // biome-ignore lint/correctness/useExhaustiveDependencies: scroll on every new line
  useEffect(() => {
    list.current?.scrollTo({ top: list.current.scrollHeight });
  }, [follow.lines.length]);
  return (
    <ol ref={list} className="log" role="log" aria-live="polite" aria-label="Update progress">
      {follow.lines.map((line, index) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: the log only grows; a line never moves
        <li key={index} className={`log-${line.tone}`}>
          <time>{line.at}</time> {line.text}
        </li>
      ))}
    </ol>
  );
}

function Outcome({ follow }: { follow: UpdateFollow }) {
  if (follow.outcome === "succeeded")
    return <p className="outcome outcome-good">Done: the platform runs {follow.target}.</p>;
  if (follow.outcome === "failed") {
    const reason = follow.lines.findLast((line) => line.tone === "bad")?.text;
    return (
      <p className="outcome outcome-bad" role="alert">
        The update has a problem{reason ? `: ${reason}` : ""}
      </p>
    );
  }
  return <p className="outcome outcome-busy">Updating… this log follows the platform live.</p>;
}
