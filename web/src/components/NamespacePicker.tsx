import { useEffect, useId, useState } from "react";
import { type ApiError, api } from "../api.ts";
import type { NamespaceAccess } from "../views.ts";

interface PickerProps {
  token: string;
  /** The plural whose list access decides which namespaces are offered. */
  resource: string;
  namespace: string | undefined;
  onChoose: (namespace: string) => void;
  /** Told which namespaces are offered once known. */
  onOffered: (namespaces: string[]) => void;
}

/** The namespaces the API server lets the user list `resource` in (the one in the address is asked about too). */
export function NamespacePicker({ token, resource, namespace, onChoose, onOffered }: PickerProps) {
  const id = useId();
  const [access, setAccess] = useState<NamespaceAccess[]>();
  const [error, setError] = useState<string>();
  useEffect(() => {
    api.namespaces(token, namespace ? [namespace] : []).then(
      (answer) => setAccess(answer.namespaces),
      (failure: ApiError) => setError(failure.message),
    );
  }, [token, namespace]);
  const offered = access?.filter((entry) => entry.resources.includes(resource)).map((entry) => entry.name);
  const key = offered?.join(",");
  // biome-ignore lint/correctness/useExhaustiveDependencies: tell once per set of namespaces
  useEffect(() => {
    if (offered) onOffered(offered);
  }, [key]);
  if (error) return <span className="picker-error">Namespaces: {error}</span>;
  if (!offered || offered.length === 0) return null;
  return (
    <span className="picker">
      <label htmlFor={id}>Namespace</label>
      <select id={id} value={namespace ?? ""} onChange={(event) => onChoose(event.target.value)}>
        {!namespace && <option value="">Choose…</option>}
        {namespace && !offered.includes(namespace) && (
          <option value={namespace}>{namespace} (no access)</option>
        )}
        {offered.map((name) => (
          <option key={name} value={name}>
            {name}
          </option>
        ))}
      </select>
    </span>
  );
}
