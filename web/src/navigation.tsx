import { createContext, type MouseEvent, type ReactNode, useContext, useEffect, useState } from "react";
import type { Connection } from "./live/useEventStream.ts";
import { parseRoute, type Route } from "./routes.ts";

const here = () => parseRoute(window.location.pathname, window.location.search);

/** Goes to `href` in this tab (history entry; `replace`: none). */
export function go(href: string, replace = false): void {
  if (replace) window.history.replaceState(null, "", href);
  else window.history.pushState(null, "", href);
  window.dispatchEvent(new PopStateEvent("popstate"));
}

/** The route the address names, kept in step with links, back and forward. */
export function useRoute(): Route {
  const [route, setRoute] = useState(here);
  useEffect(() => {
    const onPop = () => setRoute(here());
    window.addEventListener("popstate", onPop);
    return () => window.removeEventListener("popstate", onPop);
  }, []);
  return route;
}

/** A link that changes page without reloading it (a plain link for a new tab or window). */
export function Link({
  href,
  children,
  ...rest
}: {
  href: string;
  children: ReactNode;
  "aria-current"?: "page";
}) {
  const onClick = (event: MouseEvent) => {
    if (event.metaKey || event.ctrlKey || event.shiftKey || event.button !== 0) return;
    event.preventDefault();
    go(href);
  };
  return (
    <a href={href} onClick={onClick} {...rest}>
      {children}
    </a>
  );
}

/** Where a page reports the state of its event stream (the header shows it). */
export const ConnectionReport = createContext<(connection: Connection | undefined) => void>(() => {});

export function useReportConnection(connection: Connection): void {
  const report = useContext(ConnectionReport);
  useEffect(() => {
    report(connection);
    return () => report(undefined);
  }, [report, connection]);
}
