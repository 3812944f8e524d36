import { type FormEvent, useEffect, useState } from "react";
import { ApiError, api, type VersionsView } from "../api.ts";
import { PhaseBadge } from "../components/PhaseBadge.tsx";
import type { UpdateFollow } from "../updateLog.ts";
import type { PlatformState } from "../usePlatform.ts";

interface UpdateProps {
  token: string;
  state: PlatformState;
  follow: UpdateFollow | undefined;
  onStarted: (target: string, from: string | undefined) => void;
}

export function Update({ token, state, follow, onStarted }: UpdateProps) {
  const [versions, setVersions] = useState<VersionsView>();
  const [choice, setChoice] = useState<string>();
  const [error, setError] = useState<string>();
  const [starting, setStarting] = useState(false);
  const platform = state.platform;

  // The catalog's view of what is current changes when an update completes.
  const running = platform?.version;
  // biome-ignore lint/correctness/useExhaustiveDependencies: reload when the running version changes
  useEffect(() => {
    api.versions(token).then(setVersions, (failure: Error) => setError(failure.message));
  }, [token, running]);

  const start = async (event: FormEvent) => {
    event.preventDefault();
    if (!choice) return setError("Choose a version first.");
    setStarting(true);
    setError(undefined);
    try {
      const answer = await api.update(token, choice);
      onStarted(answer.to, answer.from ?? platform?.version);
    } catch (failure) {
      const status = failure instanceof ApiError ? failure.status : 0;
      const prefix = status === 403 ? "You may not update this Platform: " : "";
      setError(prefix + (failure as Error).message);
    } finally {
      setStarting(false);
    }
  };

  const busy = follow?.outcome === "following";
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
              {versions.versions.map((entry) => {
                const downgrade = !entry.current && !entry.upgrade;
                return (
                  <label key={entry.version} className={`version${downgrade ? " disabled" : ""}`}>
                    <input
                      type="radio"
                      name="version"
                      value={entry.version}
                      checked={choice === entry.version}
                      disabled={entry.current || downgrade}
                      onChange={() => setChoice(entry.version)}
                    />
                    <span className="version-number">{entry.version}</span>
                    {entry.current && <span className="tag">current</span>}
                    {entry.upgrade && <span className="tag tag-new">upgrade</span>}
                    {downgrade && <span className="tag">downgrade — only with the CLI and --force</span>}
                  </label>
                );
              })}
            </fieldset>
            <button type="submit" disabled={!choice || starting || busy}>
              {starting ? "Starting…" : choice ? `Update to ${choice}` : "Start update"}
            </button>
          </form>
        )}
        {error && (
          <p className="error" role="alert">
            {error}
          </p>
        )}
      </section>
      {follow && (
        <section aria-labelledby="log-heading" className="card">
          <h2 id="log-heading">Update to {follow.target}</h2>
          <Outcome follow={follow} />
          <ol className="log" role="log" aria-live="polite" aria-label="Update progress">
            {follow.lines.map((line, index) => (
              // biome-ignore lint/suspicious/noArrayIndexKey: the log only grows; a line never moves
              <li key={index} className={`log-${line.tone}`}>
                <time>{line.at}</time> {line.text}
              </li>
            ))}
          </ol>
        </section>
      )}
    </>
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
