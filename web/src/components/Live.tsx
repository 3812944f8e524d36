import type { Connection } from "../live/useEventStream.ts";

const label: Record<Connection, string> = {
  live: "Live",
  connecting: "Connecting…",
  reconnecting: "Reconnecting…",
};

/** The state of the page's event stream. */
export function Live({ connection }: { connection: Connection }) {
  return (
    <span className={`connection connection-${connection}`} role="status">
      {label[connection]}
    </span>
  );
}
