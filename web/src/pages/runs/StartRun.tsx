import { useEffect, useState } from "react";
import { ApiError, api } from "../../api.ts";
import { Field } from "../../components/Field.tsx";
import { useServerSubmit } from "../../components/useServerSubmit.ts";
import { go } from "../../navigation.tsx";
import { detailHref } from "../../routes.ts";
import type { PipelineView } from "../../views.ts";

interface StartRunProps {
  token: string;
  namespace: string;
  /** The pipeline chosen already (a link from its page). */
  pipeline: string | undefined;
}

/** Starts a Run of a Pipeline: its parameters with their defaults filled in; the server names a field it refuses. */
export function StartRun({ token, namespace, pipeline: initial }: StartRunProps) {
  const [pipelines, setPipelines] = useState<PipelineView[]>();
  const [chosen, setChosen] = useState(initial ?? "");
  const [values, setValues] = useState<Record<string, string>>({});
  const pipeline = pipelines?.find((entry) => entry.name === chosen);
  const parameters = pipeline?.spec.parameters ?? [];
  // biome-ignore lint/correctness/useExhaustiveDependencies: the defaults of the chosen pipeline
  useEffect(() => {
    setValues(Object.fromEntries(parameters.map((parameter) => [parameter.name, parameter.default ?? ""])));
  }, [pipeline?.name]);

  // a parameter left empty is not sent: its default applies (or the server says it has none)
  const given = () => parameters.filter((parameter) => values[parameter.name] !== "");
  const { submit, sending, error, setError } = useServerSubmit(
    () =>
      api.createRun(token, namespace, {
        pipeline: chosen,
        parameters: given().map((parameter) => ({
          name: parameter.name,
          value: values[parameter.name] ?? "",
        })),
      }),
    (run) => go(detailHref("runs", namespace, run.name)),
  );
  useEffect(() => {
    api.pipelines(token, namespace).then(
      (answer) => setPipelines(answer.items),
      (failure: ApiError) => setError(failure),
    );
  }, [token, namespace, setError]);

  return (
    <section className="card" aria-labelledby="start-heading">
      <h2 id="start-heading">Start a run</h2>
      <form onSubmit={submit} noValidate className="form-grid">
        <Field label="Pipeline" field="body.pipeline" error={error}>
          {(props) => (
            <select {...props} value={chosen} onChange={(event) => setChosen(event.target.value)}>
              <option value="">Choose a pipeline…</option>
              {pipelines?.map((entry) => (
                <option key={entry.name} value={entry.name}>
                  {entry.name}
                </option>
              ))}
            </select>
          )}
        </Field>
        {parameters.map((parameter) => (
          <Field
            key={parameter.name}
            label={`Parameter ${parameter.name}`}
            field={`body.parameters.${parameter.name}`}
            error={parameterError(error, parameters, parameter.name, values)}
            hint={parameter.default === undefined ? "required" : `default ${parameter.default}`}
          >
            {(props) => (
              <input
                {...props}
                value={values[parameter.name] ?? ""}
                onChange={(event) => setValues({ ...values, [parameter.name]: event.target.value })}
              />
            )}
          </Field>
        ))}
        {error && (
          <p className="error wide" role="alert">
            {error.message}
          </p>
        )}
        <div className="wide">
          <button type="submit" disabled={sending || !chosen}>
            {sending ? "Starting…" : "Start run"}
          </button>
        </div>
      </form>
    </section>
  );
}

/**
 * The server names a parameter by its place in what was sent (`body.parameters.1.name`) or the whole
 * list when one is missing; this finds the input that place was (parameters sent are the non-empty ones).
 */
function parameterError(
  error: ApiError | undefined,
  parameters: { name: string }[],
  name: string,
  values: Record<string, string>,
): ApiError | undefined {
  if (!error?.field?.startsWith("body.parameters")) return undefined;
  const sent = parameters.filter((parameter) => values[parameter.name] !== "");
  const index = /^body\.parameters\.(\d+)/.exec(error.field)?.[1];
  const at = index === undefined ? undefined : sent[Number(index)]?.name;
  const missing = index === undefined && error.message.includes(`parameter ${name} `);
  return at === name || missing
    ? new ApiError(error.status, error.message, `body.parameters.${name}`)
    : undefined;
}
