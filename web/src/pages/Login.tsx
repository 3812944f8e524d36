import { type FormEvent, useId, useState } from "react";
import { ApiError, api } from "../api.ts";

/** Paste a Kubernetes bearer token; it is checked by the server (TokenReview) before it is kept. */
export function Login({ onSignIn }: { onSignIn: (token: string) => void }) {
  const [token, setToken] = useState("");
  const [error, setError] = useState<string>();
  const [checking, setChecking] = useState(false);
  const fieldId = useId();
  const helpId = useId();

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const value = token.trim();
    if (!value) return setError("Paste a token first.");
    setChecking(true);
    setError(undefined);
    try {
      // any valid token may ask which namespaces it may use (no right needed but a valid identity)
      await api.namespaces(value, []);
      onSignIn(value);
    } catch (failure) {
      const status = failure instanceof ApiError ? failure.status : 0;
      if (status === 401) setError("Kubernetes does not accept this token.");
      else setError((failure as Error).message);
    } finally {
      setChecking(false);
    }
  };

  return (
    <main className="login">
      <form className="card" onSubmit={submit} aria-describedby={helpId}>
        <h1>Sign in to Slipway</h1>
        <p id={helpId} className="muted">
          Paste a Kubernetes bearer token, e.g. from <code>kubectl create token &lt;service-account&gt;</code>
          . Your Kubernetes permissions decide what you can do. The token is kept only in this browser tab.
        </p>
        <label htmlFor={fieldId}>Bearer token</label>
        <textarea
          id={fieldId}
          name="token"
          rows={5}
          spellCheck={false}
          autoComplete="off"
          value={token}
          onChange={(event) => setToken(event.target.value)}
          aria-invalid={error ? true : undefined}
        />
        {error && (
          <p className="error" role="alert">
            {error}
          </p>
        )}
        <button type="submit" disabled={checking}>
          {checking ? "Checking…" : "Sign in"}
        </button>
      </form>
    </main>
  );
}
