import { type FormEvent, useState } from 'react';
import { useMutation, useQuery } from 'urql';
import { errorMessage } from '../../lib/graphql/client.ts';
import {
  CreateDashboardDocument,
  DashboardsDocument,
  type DashboardsQuery,
} from '../../lib/graphql/generated.ts';
import type { SignedInUser } from '../../lib/graphql/me.ts';
import { followLink, navigate } from '../../lib/location.ts';
import { Dialog } from '../../ui/Dialog.tsx';
import { Problem, TextField } from '../../ui/Field.tsx';
import { type DashboardDocument, documentInput, documentOf, WRITER } from './document.ts';
import { ImportButton } from './ImportButton.tsx';

type Row = DashboardsQuery['dashboards'][number];

function Group({ title, rows, empty }: { title: string; rows: Row[]; empty: string }) {
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
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

export function DashboardList({ user }: { user: SignedInUser }) {
  const [list] = useQuery({ query: DashboardsDocument, requestPolicy: 'cache-and-network' });
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
      {list.fetching && !list.data ? <p>Loading…</p> : null}
      {list.data && (
        <>
          <Group
            title="My dashboards"
            rows={rows.filter((r) => r.isOwner)}
            empty="You have no dashboards yet."
          />
          <Group
            title="Shared with me"
            rows={rows.filter((r) => !r.isOwner && r.visibility !== 'PUBLIC')}
            empty="Nothing has been shared with you."
          />
          <Group
            title="Public"
            rows={rows.filter((r) => !r.isOwner && r.visibility === 'PUBLIC')}
            empty="No public dashboards are listed."
          />
        </>
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
