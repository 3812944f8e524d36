import { type ReactNode, useId } from "react";
import type { ApiError } from "../api.ts";

/** The message of `error` when the server named `field` (or a field inside it) as the one at fault. */
export function fieldError(error: ApiError | undefined, field: string): string | undefined {
  const at = error?.field;
  if (!at) return undefined;
  return at === field || at.startsWith(`${field}.`) ? error.message : undefined;
}

interface FieldProps {
  label: string;
  /** The server's name of the field, e.g. `body.spec.version`. */
  field: string;
  error: ApiError | undefined;
  hint?: string;
  children: (props: {
    id: string;
    name: string;
    "aria-invalid"?: true;
    "aria-describedby"?: string;
  }) => ReactNode;
}

/** A labelled control with the server's error at it (and its hint). */
export function Field({ label, field, error, hint, children }: FieldProps) {
  const id = useId();
  const message = fieldError(error, field);
  const described = [hint ? `${id}-hint` : "", message ? `${id}-error` : ""].filter(Boolean).join(" ");
  return (
    <div className={`field${message ? " field-invalid" : ""}`}>
      <label htmlFor={id}>{label}</label>
      {children({
        id,
        name: field,
        ...(message ? { "aria-invalid": true as const } : {}),
        ...(described ? { "aria-describedby": described } : {}),
      })}
      {hint && (
        <span id={`${id}-hint`} className="hint">
          {hint}
        </span>
      )}
      {message && (
        <span id={`${id}-error`} className="field-error">
          {message}
        </span>
      )}
    </div>
  );
}
