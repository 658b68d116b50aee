import { type MouseEvent, type ReactNode, Suspense } from 'react';
import { useMe } from '../lib/graphql/me.ts';
import { usePathname } from '../lib/location.ts';
import { sessionEndedReason, useSessionToken } from '../lib/useSession.ts';
import { AccountMenu } from './AccountMenu.tsx';
import { AREAS, type Area, areaFor } from './areas.ts';
import { pageFor } from './routes.ts';
import { StatusBar } from './StatusBar.tsx';

function Overview({ navigate, areas }: { navigate: (path: string) => void; areas: readonly Area[] }) {
  return (
    <section className="page">
      <h1>Towpath</h1>
      <p>A workstation for filament-winding machines.</p>
      <ul className="area-list">
        {areas.map((area) => (
          <li key={area.path}>
            <a href={area.path} onClick={follow(navigate, area.path)}>
              {area.label}
            </a>
            <span>{area.summary}</span>
          </li>
        ))}
      </ul>
    </section>
  );
}

function follow(navigate: (path: string) => void, path: string) {
  return (event: MouseEvent) => {
    if (event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    event.preventDefault();
    navigate(path);
  };
}

export interface AppFrameProps {
  /**
   * Shown in the header on every screen: the slot of the global EmergencyStopButton (the machine
   * door's e-stop, built with the machine process), e.g. `<AppFrame headerActions={<EmergencyStopButton />} />`.
   */
  headerActions?: ReactNode;
}

export function AppFrame({ headerActions }: AppFrameProps = {}) {
  const [pathname, navigate] = usePathname();
  const area = areaFor(pathname);
  const Page = pageFor(pathname);
  // Admin screens are for admins; the server refuses everyone else anyway.
  const { user } = useMe();
  // Said on every page, not only at sign-in: the session can end while someone is looking at a dashboard.
  const token = useSessionToken();
  const ended = !token && pathname !== '/sign-in' ? sessionEndedReason() : null;
  const areas = AREAS.filter((a) => a.path !== '/admin' || user?.role === 'ADMIN');

  let page: ReactNode;
  if (pathname === '/') page = <Overview navigate={navigate} areas={areas} />;
  else if (Page)
    page = (
      <Suspense fallback={<p className="page page__loading">Loading…</p>}>
        <Page />
      </Suspense>
    );
  else if (area)
    page = (
      <section className="page">
        <h1>{area.label}</h1>
        <p>{area.summary}</p>
        <p className="page__empty">This area is not part of this version of Towpath yet.</p>
      </section>
    );
  else
    page = (
      <section className="page">
        <h1>Page not found</h1>
        <p>
          There is no page at <code>{pathname}</code>.{' '}
          <a href="/" onClick={follow(navigate, '/')}>
            Back to the overview
          </a>
        </p>
      </section>
    );

  return (
    <div className="app">
      <header className="app__header">
        <a className="app__name" href="/" onClick={follow(navigate, '/')}>
          Towpath
        </a>
        <nav aria-label="Areas">
          {areas.map((a) => (
            <a
              key={a.path}
              href={a.path}
              aria-current={a === area ? 'page' : undefined}
              onClick={follow(navigate, a.path)}
            >
              {a.label}
            </a>
          ))}
        </nav>
        <div className="app__actions">
          <AccountMenu />
          {headerActions}
        </div>
      </header>
      <main className="app__main">
        {ended && (
          <p className="app__session-ended" role="alert">
            {ended}{' '}
            <a
              href={`/sign-in?next=${encodeURIComponent(pathname)}`}
              onClick={follow(navigate, `/sign-in?next=${encodeURIComponent(pathname)}`)}
            >
              Sign in
            </a>
          </p>
        )}
        {page}
      </main>
      <StatusBar />
    </div>
  );
}
