import { useState } from "react";
import { type ApiError, api } from "../../api.ts";
import { Field } from "../../components/Field.tsx";
import { useServerSubmit } from "../../components/useServerSubmit.ts";
import { go } from "../../navigation.tsx";
import { detailHref } from "../../routes.ts";
import type { BuildArg, BuildSpec } from "../../views.ts";

interface ArgRow {
  name: string;
  /** A plain value, or a key of a Secret (secrets only by reference). */
  source: "value" | "secret";
  value: string;
  secret: string;
  key: string;
}

const emptyRow = (): ArgRow => ({ name: "", source: "value", value: "", secret: "", key: "" });

function buildArg(row: ArgRow): BuildArg {
  if (row.source === "value") return { name: row.name, value: row.value };
  return { name: row.name, valueFrom: { secretKeyRef: { name: row.secret, key: row.key } } };
}

/** Creates an ImageBuild; the server validates it and names the field at fault. */
export function BuildForm({ token, namespace }: { token: string; namespace: string }) {
  const [fields, setFields] = useState({ name: "", project: "", image: "", version: "", artifactUri: "" });
  const [args, setArgs] = useState<ArgRow[]>([]);
  const set = (key: keyof typeof fields) => (event: { target: { value: string } }) =>
    setFields({ ...fields, [key]: event.target.value });
  const spec = (): BuildSpec => ({
    project: fields.project,
    name: fields.image,
    version: fields.version,
    artifactUri: fields.artifactUri,
    ...(args.length ? { buildArgs: args.map(buildArg) } : {}),
  });
  const { submit, sending, error } = useServerSubmit(
    () => api.createBuild(token, namespace, { name: fields.name, spec: spec() }),
    (created) => go(detailHref("builds", namespace, created.name)),
  );

  return (
    <section className="card" aria-labelledby="new-build-heading">
      <h2 id="new-build-heading">New image build</h2>
      <form onSubmit={submit} noValidate className="form-grid">
        <Field label="Resource name" field="body.name" error={error}>
          {(props) => <input {...props} value={fields.name} onChange={set("name")} autoComplete="off" />}
        </Field>
        <Field label="Project" field="body.spec.project" error={error}>
          {(props) => <input {...props} value={fields.project} onChange={set("project")} />}
        </Field>
        <Field label="Image name" field="body.spec.name" error={error}>
          {(props) => <input {...props} value={fields.image} onChange={set("image")} />}
        </Field>
        <Field label="Version" field="body.spec.version" error={error} hint="Usually the image tag">
          {(props) => <input {...props} value={fields.version} onChange={set("version")} />}
        </Field>
        <Field
          label="Artifact URI"
          field="body.spec.artifactUri"
          error={error}
          hint="s3://bucket/prefix or gs://bucket/prefix"
        >
          {(props) => (
            <input {...props} value={fields.artifactUri} onChange={set("artifactUri")} className="wide" />
          )}
        </Field>
        <BuildArgs rows={args} onChange={setArgs} error={error} />
        {error && (
          <p className="error wide" role="alert">
            {error.field ? `The server refused the build: ${error.message}` : error.message}
          </p>
        )}
        <div className="wide">
          <button type="submit" disabled={sending}>
            {sending ? "Creating…" : "Create build"}
          </button>
        </div>
      </form>
    </section>
  );
}

interface ArgsProps {
  rows: ArgRow[];
  onChange: (rows: ArgRow[]) => void;
  error: ApiError | undefined;
}

function BuildArgs({ rows, onChange, error }: ArgsProps) {
  const update = (index: number, change: Partial<ArgRow>) =>
    onChange(rows.map((row, at) => (at === index ? { ...row, ...change } : row)));
  return (
    <fieldset className="wide">
      <legend>Build arguments</legend>
      {rows.length === 0 && (
        <p className="muted">
          None. Secrets are given by reference (a Secret's name and key), never by value.
        </p>
      )}
      {rows.map((row, index) => (
        <BuildArgRow
          // biome-ignore lint/suspicious/noArrayIndexKey: rows have no identity but their place
          key={index}
          row={row}
          index={index}
          error={error}
          onChange={(change) => update(index, change)}
          onRemove={() => onChange(rows.filter((_, at) => at !== index))}
        />
      ))}
      <button type="button" className="secondary" onClick={() => onChange([...rows, emptyRow()])}>
        Add a build argument
      </button>
    </fieldset>
  );
}

interface ArgRowProps {
  row: ArgRow;
  index: number;
  error: ApiError | undefined;
  onChange: (change: Partial<ArgRow>) => void;
  onRemove: () => void;
}

function BuildArgRow({ row, index, error, onChange, onRemove }: ArgRowProps) {
  const field = `body.spec.buildArgs.${index}`;
  const n = index + 1;
  return (
    <div className="arg-row">
      <Field label={`Argument ${n} name`} field={`${field}.name`} error={error}>
        {(props) => (
          <input {...props} value={row.name} onChange={(event) => onChange({ name: event.target.value })} />
        )}
      </Field>
      <Field label={`Argument ${n} source`} field={`${field}.source`} error={undefined}>
        {(props) => (
          <select
            {...props}
            value={row.source}
            onChange={(event) => onChange({ source: event.target.value as ArgRow["source"] })}
          >
            <option value="value">Value</option>
            <option value="secret">Secret key</option>
          </select>
        )}
      </Field>
      {row.source === "value" ? (
        <Field label={`Argument ${n} value`} field={`${field}.value`} error={error}>
          {(props) => (
            <input
              {...props}
              value={row.value}
              onChange={(event) => onChange({ value: event.target.value })}
            />
          )}
        </Field>
      ) : (
        <>
          <Field label={`Argument ${n} secret`} field={`${field}.valueFrom.secretKeyRef.name`} error={error}>
            {(props) => (
              <input
                {...props}
                value={row.secret}
                onChange={(event) => onChange({ secret: event.target.value })}
              />
            )}
          </Field>
          <Field label={`Argument ${n} key`} field={`${field}.valueFrom.secretKeyRef.key`} error={error}>
            {(props) => (
              <input {...props} value={row.key} onChange={(event) => onChange({ key: event.target.value })} />
            )}
          </Field>
        </>
      )}
      <button type="button" className="secondary" onClick={onRemove} aria-label={`Remove argument ${n}`}>
        Remove
      </button>
    </div>
  );
}
