import type { ComponentView } from "../api.ts";
import { PhaseBadge } from "./PhaseBadge.tsx";

export function ComponentsTable({ components }: { components: ComponentView[] }) {
  if (components.length === 0) return <p className="muted">No components reported yet.</p>;
  return (
    <table className="components">
      <caption className="visually-hidden">Platform components</caption>
      <thead>
        <tr>
          <th scope="col">Component</th>
          <th scope="col">Phase</th>
          <th scope="col">Ready</th>
          <th scope="col">Version</th>
          <th scope="col">Message</th>
        </tr>
      </thead>
      <tbody>
        {components.map((component) => (
          <tr key={component.name} data-component={component.name}>
            <th scope="row">{component.name}</th>
            <td>
              <PhaseBadge phase={component.phase} />
            </td>
            <td>{component.ready}</td>
            <td>{component.version ?? "—"}</td>
            <td className="message">{component.message ?? ""}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
