import { type FormEvent, useState } from 'react';
import { useMutation, useQuery } from 'urql';
import { errorMessage } from '../../lib/graphql/client.ts';
import {
  CreateDashboardDocument,
  DashboardsDocument,
  type DashboardsQuery,
  DeleteDashboardDocument,
} from '../../lib/graphql/generated.ts';
import type { SignedInUser } from '../../lib/graphql/me.ts';
import { followLink, navigate } from '../../lib/location.ts';
import { Dialog } from '../../ui/Dialog.tsx';
import { Problem, TextField } from '../../ui/Field.tsx';
import { type DashboardDocument, documentInput, documentOf, WRITER } from './document.ts';
import { ImportButton } from './ImportButton.tsx';

type Row = DashboardsQuery['dashboards'][number];

interface GroupProps {
  title: string;
  rows: Row[];
  empty: string;
  /** Whether the person may delete this dashboard (its owner, or an admin: API §8.1 "D"). */
  mayDelete: (row: Row) => boolean;
  onDelete: (row: Row) => void;
}

function Group({ title, rows, empty, mayDelete, onDelete }: GroupProps) {
  const id = `list-${title.replace(/\W+/g, '-').toLowerCase()}`;
  return (
    <section aria-labelledby={id} className="dashboard-list__group">
      <h2 id={id}>{title}</h2>
      {rows.length === 0 ? (
        <p className="dashboard-list__empty">{empty}</p>
      ) : (
        <ul className="dashboard-list">
          {rows.map((row) => (
            <li key={row._id}>
              <a href={`/dashboards/${row._id}`} onClick={followLink(`/dashboards/${row._id}`)}>
                {row.title}
              </a>
              <span className="dashboard-list__meta">
                {row.visibility.toLowerCase()} · updated {new Date(row.updatedAt).toLocaleString()}
              </span>
              {mayDelete(row) && (
                <button type="button" className="button dashboard-list__delete" onClick={() => onDelete(row)}>
                  Delete<span className="visually-hidden"> {row.title}</span>
                </button>
              )}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

export function DashboardList({ user }: { user: SignedInUser }) {
  const [list, refetchList] = useQuery({ query: DashboardsDocument, requestPolicy: 'cache-and-network' });
  const [deletion, deleteDashboard] = useMutation(DeleteDashboardDocument);
  const [deleting, setDeleting] = useState<Row | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const mayDelete = (row: Row) => row.isOwner || user.role === 'ADMIN';
  const confirmDelete = async () => {
    if (!deleting) return;
    const answer = await deleteDashboard({ id: deleting._id });
    if (answer.error) return;
    setNotice(`Deleted “${deleting.title}”.`);
    setDeleting(null);
    refetchList({ requestPolicy: 'network-only' });
  };
  const [created, create] = useMutation(CreateDashboardDocument);
  const [asking, setAsking] = useState(false);
  const [title, setTitle] = useState('');
  const [problem, setProblem] = useState<string | null>(null);
  const mayCreate = user.role !== 'VIEWER';

  const createFrom = async (document: DashboardDocument) => {
    setProblem(null);
    const answer = await create({ input: documentInput(document) });
    const id = answer.data?.createDashboard._id;
    if (id) navigate(`/dashboards/${id}/edit`);
    else setProblem(errorMessage(answer.error) ?? 'The dashboard was not created');
  };

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    await createFrom(documentOf({ title, version: WRITER }));
  };

  const rows = list.data?.dashboards ?? [];
  return (
    <section className="page dashboards">
      <h1>Dashboards</h1>
      {mayCreate && (
        <div className="toolbar">
          <button type="button" className="button button--primary" onClick={() => setAsking(true)}>
            New dashboard
          </button>
          <ImportButton onDocument={(doc) => createFrom(doc)} onProblem={setProblem} />
        </div>
      )}
      <Problem message={problem} />
      <Problem message={errorMessage(list.error)} />
      {notice && <p role="status">{notice}</p>}
      {list.fetching && !list.data ? <p>Loading…</p> : null}
      {list.data && (
        <>
          <Group
            title="My dashboards"
            rows={rows.filter((r) => r.isOwner)}
            empty="You have no dashboards yet."
            mayDelete={mayDelete}
            onDelete={setDeleting}
          />
          <Group
            title="Shared with me"
            rows={rows.filter((r) => !r.isOwner && r.visibility !== 'PUBLIC')}
            empty="Nothing has been shared with you."
            mayDelete={mayDelete}
            onDelete={setDeleting}
          />
          <Group
            title="Public"
            rows={rows.filter((r) => !r.isOwner && r.visibility === 'PUBLIC')}
            empty="No public dashboards are listed."
            mayDelete={mayDelete}
            onDelete={setDeleting}
          />
        </>
      )}
      {deleting && (
        <Dialog title={`Delete “${deleting.title}”?`} onClose={() => setDeleting(null)}>
          <p>
            This deletes the dashboard and its history for everyone who has it; its share link stops working
            at once. It cannot be undone.
          </p>
          <Problem message={errorMessage(deletion.error)} />
          <div className="toolbar">
            <button
              type="button"
              className="button button--danger"
              disabled={deletion.fetching}
              onClick={confirmDelete}
            >
              Delete dashboard
            </button>
          </div>
        </Dialog>
      )}
      {asking && (
        <Dialog title="New dashboard" onClose={() => setAsking(false)}>
          <form className="form" onSubmit={submit}>
            <TextField label="Title" required maxLength={200} value={title} onChange={setTitle} />
            <Problem message={errorMessage(created.error)} />
            <button
              type="submit"
              className="button button--primary"
              disabled={created.fetching || title.trim() === ''}
            >
              Create
            </button>
          </form>
        </Dialog>
      )}
    </section>
  );
}
