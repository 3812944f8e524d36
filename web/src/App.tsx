import { type MouseEvent, useCallback, useEffect, useState } from "react";
import { type PlatformEvent, session } from "./api.ts";
import { Login } from "./pages/Login.tsx";
import { Overview } from "./pages/Overview.tsx";
import { Update } from "./pages/Update.tsx";
import { followEvent, startFollow, type UpdateFollow } from "./updateLog.ts";
import { usePlatform } from "./usePlatform.ts";

const pages = { "/": "Overview", "/update": "Update" } as const;
type Path = keyof typeof pages;
const currentPath = (): Path => (window.location.pathname === "/update" ? "/update" : "/");

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

/** The page the address names, kept in step with back/forward and the document title. */
function usePath() {
  const [path, setPath] = useState(currentPath);
  useEffect(() => {
    const onPop = () => setPath(currentPath());
    window.addEventListener("popstate", onPop);
    return () => window.removeEventListener("popstate", onPop);
  }, []);
  useEffect(() => {
    document.title = `${pages[path]} · Slipway`;
  }, [path]);
  const navigate = (to: Path) => (event: MouseEvent) => {
    event.preventDefault();
    window.history.pushState(null, "", to);
    setPath(to);
  };
  return { path, navigate };
}

function SignedIn({ token, onSignOut }: { token: string; onSignOut: () => void }) {
  const { path, navigate } = usePath();
  const [follow, setFollow] = useState<UpdateFollow>();

  const onEvent = useCallback((event: PlatformEvent) => {
    setFollow((current) => (current ? followEvent(current, event, new Date()) : current));
  }, []);
  const state = usePlatform(token, onSignOut, onEvent);

  // An update started elsewhere (the CLI, another tab) is followed too.
  const inProgress = state.platform?.desiredVersion !== state.platform?.version ? state.platform : undefined;
  useEffect(() => {
    if (inProgress?.desiredVersion && inProgress.version) {
      const target = inProgress.desiredVersion;
      setFollow((current) => current ?? startFollow(target, inProgress.version, new Date()));
    }
  }, [inProgress]);

  return (
    <>
      <a className="skip" href="#main">
        Skip to content
      </a>
      <header className="topbar">
        <span className="brand">Slipway</span>
        <nav aria-label="Main">
          {(Object.keys(pages) as Path[]).map((to) => (
            <a key={to} href={to} onClick={navigate(to)} aria-current={path === to ? "page" : undefined}>
              {pages[to]}
            </a>
          ))}
        </nav>
        <span className={`connection connection-${state.connection}`} role="status">
          {state.connection === "live"
            ? "Live"
            : state.connection === "connecting"
              ? "Connecting…"
              : "Reconnecting…"}
        </span>
        <button type="button" className="link" onClick={onSignOut}>
          Sign out
        </button>
      </header>
      <main id="main">
        <h1 className="visually-hidden">{pages[path]}</h1>
        {state.error && state.connection !== "live" && (
          <p className="error" role="alert">
            {state.error}
          </p>
        )}
        {path === "/" ? (
          <Overview state={state} />
        ) : (
          <Update
            token={token}
            state={state}
            follow={follow}
            onStarted={(target, from) => setFollow(startFollow(target, from, new Date()))}
          />
        )}
      </main>
    </>
  );
}
