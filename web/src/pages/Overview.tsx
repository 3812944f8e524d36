import { ComponentsTable } from "../components/ComponentsTable.tsx";
import { Conditions } from "../components/Conditions.tsx";
import { PhaseBadge } from "../components/PhaseBadge.tsx";
import type { PlatformState } from "../usePlatform.ts";

export function Overview({ state }: { state: PlatformState }) {
  const { platform, absent } = state;
  if (absent)
    return (
      <p className="notice">
        There is no Platform here yet. Install one with <code>slipway install</code>.
      </p>
    );
  if (!platform) return <p className="muted">Loading the Platform…</p>;
  const updating = platform.desiredVersion !== undefined && platform.desiredVersion !== platform.version;
  return (
    <>
      <section aria-labelledby="summary-heading" className="card">
        <h2 id="summary-heading">
          {platform.namespace}/{platform.name}
        </h2>
        <dl className="summary">
          <div>
            <dt>Phase</dt>
            <dd data-testid="phase">
              <PhaseBadge phase={platform.phase} />
            </dd>
          </div>
          <div>
            <dt>Running version</dt>
            <dd data-testid="version">{platform.version ?? "—"}</dd>
          </div>
          <div>
            <dt>Requested version</dt>
            <dd>
              {platform.desiredVersion ?? "operator default"}
              {updating && <span className="muted"> (not running yet)</span>}
            </dd>
          </div>
          <div>
            <dt>Components ready</dt>
            <dd>{platform.ready ?? "—"}</dd>
          </div>
        </dl>
        {platform.message && <p className="message-line">{platform.message}</p>}
        {platform.stopped && <p className="notice">The platform is stopped (data is kept).</p>}
      </section>
      <section aria-labelledby="components-heading" className="card">
        <h2 id="components-heading">Components</h2>
        <ComponentsTable components={platform.components} />
      </section>
      {platform.conditions.length > 0 && (
        <section aria-labelledby="conditions-heading" className="card">
          <h2 id="conditions-heading">Conditions</h2>
          <Conditions conditions={platform.conditions} />
        </section>
      )}
    </>
  );
}
