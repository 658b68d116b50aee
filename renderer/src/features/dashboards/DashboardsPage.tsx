// /dashboards (the list), /dashboards/:id (the viewer) and /dashboards/:id/edit (the editor).
import { useMe } from '../../lib/graphql/me.ts';
import { followLink, usePathname } from '../../lib/location.ts';
import { DashboardList } from './DashboardList.tsx';
import { DashboardViewer } from './DashboardViewer.tsx';
import { DashboardEditor } from './editor/DashboardEditor.tsx';
import '../../ui/forms.css';
import './dashboards.css';

export default function DashboardsPage() {
  const [pathname] = usePathname();
  const { user, fetching } = useMe();
  const [, , id, mode] = pathname.split('/');
  if (fetching) return <p className="page">Loading…</p>;
  if (!user)
    return (
      <section className="page">
        <h1>Dashboards</h1>
        <p>
          <a
            href={`/sign-in?next=${encodeURIComponent(pathname)}`}
            onClick={followLink(`/sign-in?next=${encodeURIComponent(pathname)}`)}
          >
            Sign in
          </a>{' '}
          to see your dashboards.
        </p>
      </section>
    );
  if (id && mode === 'edit') return <DashboardEditor key={id} id={id} />;
  if (id) return <DashboardViewer key={id} id={id} />;
  return <DashboardList user={user} />;
}
