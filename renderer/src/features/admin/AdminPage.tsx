// /admin and /admin/<tab>: people, policy, profiles, audit and runtime figures, for admins only (the
// server refuses everyone else anyway). Tabs follow the WAI-ARIA tabs pattern: arrow keys move
// between them, and the open tab is part of the address.
import { type KeyboardEvent, useRef } from 'react';
import { useMe } from '../../lib/graphql/me.ts';
import { followLink, navigate, usePathname } from '../../lib/location.ts';
import { InvitesTab } from './InvitesTab.tsx';
import { PolicyTab } from './PolicyTab.tsx';
import { BrokersTab, CredentialsTab } from './ProfilesTabs.tsx';
import { AuditTab, DiagnosticsTab, MetricsTab } from './ReadTabs.tsx';
import { ServiceAccountsTab } from './ServiceAccountsTab.tsx';
import { UsersTab } from './UsersTab.tsx';
import '../../ui/forms.css';
import './admin.css';

const TABS = [
  { slug: 'users', label: 'Users', Panel: UsersTab },
  { slug: 'invites', label: 'Invites', Panel: InvitesTab },
  { slug: 'policy', label: 'Policy', Panel: PolicyTab },
  { slug: 'credentials', label: 'Credentials', Panel: CredentialsTab },
  { slug: 'brokers', label: 'Brokers', Panel: BrokersTab },
  { slug: 'service-accounts', label: 'Service accounts', Panel: ServiceAccountsTab },
  { slug: 'audit', label: 'Audit', Panel: AuditTab },
  { slug: 'diagnostics', label: 'Diagnostics', Panel: DiagnosticsTab },
  { slug: 'metrics', label: 'Metrics', Panel: MetricsTab },
] as const;

export default function AdminPage() {
  const [pathname] = usePathname();
  const { user, fetching } = useMe();
  const tabs = useRef<(HTMLButtonElement | null)[]>([]);
  if (fetching) return <p className="page">Loading…</p>;
  if (!user)
    return (
      <section className="page">
        <h1>Admin</h1>
        <p>
          <a href="/sign-in?next=/admin" onClick={followLink('/sign-in?next=/admin')}>
            Sign in
          </a>{' '}
          as an admin to manage Towpath.
        </p>
      </section>
    );
  if (user.role !== 'ADMIN')
    return (
      <section className="page">
        <h1>Admin</h1>
        <p role="alert">Admin role required.</p>
      </section>
    );
  const slug = pathname.split('/')[2] ?? 'users';
  const index = Math.max(
    0,
    TABS.findIndex((t) => t.slug === slug),
  );
  const open = TABS[index] ?? TABS[0];
  const go = (i: number) => {
    const tab = TABS[(i + TABS.length) % TABS.length] ?? TABS[0];
    navigate(`/admin/${tab.slug}`, { replace: true });
    tabs.current[(i + TABS.length) % TABS.length]?.focus();
  };
  const onKeyDown = (event: KeyboardEvent) => {
    const moves: Record<string, number> = {
      ArrowRight: index + 1,
      ArrowLeft: index - 1,
      Home: 0,
      End: TABS.length - 1,
    };
    const to = moves[event.key];
    if (to === undefined) return;
    event.preventDefault();
    go(to);
  };
  const Panel = open.Panel;
  return (
    <section className="page admin">
      <h1>Admin</h1>
      <div role="tablist" aria-label="Admin areas" className="admin__tabs" onKeyDown={onKeyDown}>
        {TABS.map((tab, i) => (
          <button
            key={tab.slug}
            ref={(el) => {
              tabs.current[i] = el;
            }}
            type="button"
            role="tab"
            id={`admin-tab-${tab.slug}`}
            aria-selected={tab === open}
            aria-controls={`admin-panel-${tab.slug}`}
            tabIndex={tab === open ? 0 : -1}
            className="admin__tab"
            onClick={() => go(i)}
          >
            {tab.label}
          </button>
        ))}
      </div>
      <div
        role="tabpanel"
        id={`admin-panel-${open.slug}`}
        aria-labelledby={`admin-tab-${open.slug}`}
        className="admin__panel"
      >
        <Panel />
      </div>
    </section>
  );
}
