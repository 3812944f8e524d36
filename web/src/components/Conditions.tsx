import type { Condition } from "../views.ts";

/** A resource's conditions: type, status, reason and message. */
export function Conditions({ conditions }: { conditions: Condition[] | undefined }) {
  if (!conditions?.length) return <p className="muted">No conditions reported yet.</p>;
  return (
    <ul className="conditions">
      {conditions.map((condition) => (
        <li key={condition.type}>
          <strong>{condition.type}</strong> {condition.status} — {condition.reason}
          {condition.message ? `: ${condition.message}` : ""}
        </li>
      ))}
    </ul>
  );
}

/** Why the page's data is not there (e.g. the user may not read it here). */
export function StreamProblem({ error, what }: { error: string | undefined; what: string }) {
  if (!error) return null;
  return (
    <p className="error" role="alert">
      Cannot show {what}: {error}
    </p>
  );
}
