import { useCallback, useEffect, useState } from "react";
import { type PlatformEvent, session } from "./api.ts";
import { Live } from "./components/Live.tsx";
import { NamespacePicker } from "./components/NamespacePicker.tsx";
import type { Connection } from "./live/useEventStream.ts";
import { ConnectionReport, go, Link, useRoute } from "./navigation.tsx";
import { Login } from "./pages/Login.tsx";
import { Overview } from "./pages/Overview.tsx";
import { SectionPage } from "./pages/SectionPage.tsx";
import { Update } from "./pages/Update.tsx";
import { listHref, type Route, type Section, sectionResource, sectionTitle } from "./routes.ts";
import { followEvent, startFollow, type UpdateFollow } from "./updateLog.ts";
import { usePlatform } from "./usePlatform.ts";

export function App() {
  const [token, setToken] = useState(session.token);
  const signIn = (value: string) => {
    session.signIn(value);
    setToken(value);
  };
  const signOut = useCallback(() => {
    session.signOut();
    setToken(null);
  }, []);
  if (!token) return <Login onSignIn={signIn} />;
  return <SignedIn token={token} onSignOut={signOut} />;
}

const sections: Section[] = ["builds", "pipelines", "runs", "providers"];
const pageTitle = (route: Route) =>
  route.page === "overview" ? "Overview" : route.page === "update" ? "Update" : sectionTitle[route.page];

/** The Update page's log, kept while the user moves between pages; an update started elsewhere is followed too. */
function useUpdateFollow(token: string, onSignOut: () => void, platformPage: boolean) {
  const [follow, setFollow] = useState<UpdateFollow>();
  const onEvent = useCallback((event: PlatformEvent) => {
    setFollow((current) => (current ? followEvent(current, event, new Date()) : current));
  }, []);
  const state = usePlatform(token, onSignOut, onEvent, platformPage);
  const inProgress = state.platform?.desiredVersion !== state.platform?.version ? state.platform : undefined;
  useEffect(() => {
    if (inProgress?.desiredVersion && inProgress.version) {
      const target = inProgress.desiredVersion;
      setFollow((current) => current ?? startFollow(target, inProgress.version, new Date()));
    }
  }, [inProgress]);
  const started = (target: string, from: string | undefined) =>
    setFollow(startFollow(target, from, new Date()));
  return { state, follow, started };
}

function SignedIn({ token, onSignOut }: { token: string; onSignOut: () => void }) {
  const route = useRoute();
  const platformPage = route.page === "overview" || route.page === "update";
  const { state, follow, started } = useUpdateFollow(token, onSignOut, platformPage);
  const [reported, setReported] = useState<Connection>();
  const [offered, setOffered] = useState<string[]>();
  const title = pageTitle(route);
  // biome-ignore lint/correctness/useExhaustiveDependencies: another section offers its own namespaces
  useEffect(() => setOffered(undefined), [route.page]);
  useEffect(() => {
    document.title = `${title} · Slipway`;
  }, [title]);
  const connection = platformPage ? state.connection : reported;
  const section = platformPage ? undefined : (route as Extract<Route, { page: Section }>);
  // no namespace in the address: the first one offered
  useEffect(() => {
    if (section && !section.namespace && offered?.[0]) go(listHref(section.page, offered[0]), true);
  }, [section, offered]);

  return (
    <ConnectionReport.Provider value={setReported}>
      <a className="skip" href="#main">
        Skip to content
      </a>
      <header className="topbar">
        <span className="brand">Slipway</span>
        <nav aria-label="Main">
          <Link href="/" aria-current={route.page === "overview" ? "page" : undefined}>
            Overview
          </Link>
          <Link href="/update" aria-current={route.page === "update" ? "page" : undefined}>
            Update
          </Link>
          {sections.map((to) => (
            <Link
              key={to}
              href={listHref(to, section?.namespace)}
              aria-current={route.page === to ? "page" : undefined}
            >
              {sectionTitle[to]}
            </Link>
          ))}
        </nav>
        {section && (
          <NamespacePicker
            key={section.page}
            token={token}
            resource={sectionResource[section.page]}
            namespace={section.namespace}
            onChoose={(namespace) => go(listHref(section.page, namespace))}
            onOffered={setOffered}
          />
        )}
        {connection && <Live connection={connection} />}
        <button type="button" className="link" onClick={onSignOut}>
          Sign out
        </button>
      </header>
      <main id="main">
        <h1 className="visually-hidden">{title}</h1>
        {platformPage && state.error && state.connection !== "live" && (
          <p className="error" role="alert">
            {state.error}
          </p>
        )}
        {route.page === "overview" && <Overview state={state} />}
        {route.page === "update" && (
          <Update token={token} state={state} follow={follow} onStarted={started} />
        )}
        {section && <SectionPage token={token} route={section} offered={offered} onSignOut={onSignOut} />}
      </main>
    </ConnectionReport.Provider>
  );
}
