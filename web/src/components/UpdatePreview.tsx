import type { UpdatePreview } from "../api.ts";

type ObjectPreview = UpdatePreview["components"][number]["objects"][number];

const marks: Record<ObjectPreview["action"], string> = {
  change: "~",
  create: "+",
  prune: "-",
  conflict: "!",
  fail: "!",
};

const shown = (value: unknown) => (typeof value === "string" ? value : JSON.stringify(value));

/** The lines under an object: its changed fields as a diff, or what the update does about it. */
function details(object: ObjectPreview): { text: string; tone: "good" | "bad" | "info" | "plain" }[] {
  switch (object.action) {
    case "change":
      return object.changes.flatMap((change) => [
        ...("before" in change
          ? [{ text: `- ${change.path}: ${shown(change.before)}`, tone: "bad" as const }]
          : []),
        ...("after" in change
          ? [{ text: `+ ${change.path}: ${shown(change.after)}`, tone: "good" as const }]
          : []),
      ]);
    case "prune":
      return [{ text: object.resolution, tone: "plain" }];
    case "conflict":
      // a conflict the update resolves (the workload recreated) is handled, not an error
      return object.resolved
        ? [
            { text: `immutable: ${object.fields.join(", ")}`, tone: "plain" },
            { text: object.resolution, tone: "info" },
          ]
        : [
            { text: `immutable: ${object.fields.join(", ")}`, tone: "bad" },
            { text: object.resolution, tone: "bad" },
          ];
    case "fail":
      return [{ text: `will fail: ${object.message}`, tone: "bad" }];
    default:
      return [];
  }
}

/** What an update would change, per component, as `slipway update --dry-run` prints it. */
export function UpdatePreviewView({ preview }: { preview: UpdatePreview }) {
  return (
    <section aria-labelledby="preview-heading" className="card">
      <h2 id="preview-heading">What the update to {preview.to} changes (nothing is applied)</h2>
      {preview.components.map((component) => (
        <div key={component.objectName} className="preview-component">
          <h3>
            {component.component}
            {component.unchanged > 0 && <span className="muted"> ({component.unchanged} unchanged)</span>}
          </h3>
          {component.objects.length === 0 ? (
            <p className="muted">no change</p>
          ) : (
            <ul className="log" aria-label={`Changes to ${component.component}`}>
              {component.objects.map((object) => (
                <li key={`${object.kind}/${object.name}`}>
                  {marks[object.action]} {object.kind} {preview.namespace}/{object.name}
                  {details(object).map((line) => (
                    <div
                      key={line.text}
                      className={line.tone === "plain" ? "preview-note" : `log-${line.tone}`}
                    >
                      {line.text}
                    </div>
                  ))}
                </li>
              ))}
            </ul>
          )}
        </div>
      ))}
    </section>
  );
}
