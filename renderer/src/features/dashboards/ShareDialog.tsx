import { type FormEvent, useState } from 'react';
import { useMutation, useQuery } from 'urql';
import { errorCode, errorMessage } from '../../lib/graphql/client.ts';
import {
  type DashboardAccessLevel,
  DashboardCollaboratorsDocument,
  type DashboardVisibility,
  RevokeDashboardAccessDocument,
  RotateDashboardShareTokenDocument,
  SetDashboardVisibilityDocument,
  TransferDashboardOwnershipDocument,
  UpsertDashboardAccessDocument,
} from '../../lib/graphql/generated.ts';
import { useMe } from '../../lib/graphql/me.ts';
import { useLinkBase } from '../../lib/links.ts';
import { Dialog } from '../../ui/Dialog.tsx';
import { Field, Problem, TextField } from '../../ui/Field.tsx';
import type { DashboardRecord } from './useDashboard.ts';

const VISIBILITIES: { value: DashboardVisibility; label: string; hint: string }[] = [
  { value: 'PRIVATE', label: 'Private', hint: 'Only you, the people below and admins.' },
  { value: 'LINK', label: 'Link', hint: 'Also anyone with the link, without an account.' },
  {
    value: 'PUBLIC',
    label: 'Public',
    hint: 'Anyone with the link; listed to signed-in users if the admins allow.',
  },
];

const PUBLISH_REFUSED =
  'Publishing (Link or Public) is for admins unless the auth policy lets editors publish. Ask an admin to share this dashboard or to allow editors to publish.';

export function shareLink(base: string, shareToken: string): string {
  return `${base}/s/${encodeURIComponent(shareToken)}`;
}

async function copyText(text: string): Promise<boolean> {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    return false;
  }
}

export function ShareDialog({ dashboard, onClose }: { dashboard: DashboardRecord; onClose: () => void }) {
  const id = dashboard._id;
  const { user } = useMe();
  const linkBase = useLinkBase();
  const [visibility, setVisibility] = useMutation(SetDashboardVisibilityDocument);
  const [rotation, rotate] = useMutation(RotateDashboardShareTokenDocument);
  const [collaborators, refetchCollaborators] = useQuery({
    query: DashboardCollaboratorsDocument,
    variables: { id },
    requestPolicy: 'network-only',
  });
  const [access, upsert] = useMutation(UpsertDashboardAccessDocument);
  const [revocation, revoke] = useMutation(RevokeDashboardAccessDocument);
  const [transfer, transferTo] = useMutation(TransferDashboardOwnershipDocument);
  const [email, setEmail] = useState('');
  const [level, setLevel] = useState<DashboardAccessLevel>('VIEWER');
  const [status, setStatus] = useState<string | null>(null);
  const [current, setCurrent] = useState(dashboard);
  const mayTransfer = dashboard.isOwner || user?.role === 'ADMIN';

  const changeVisibility = async (value: DashboardVisibility) => {
    setStatus(null);
    const answer = await setVisibility({ id, visibility: value });
    if (answer.data) setCurrent(answer.data.setDashboardVisibility);
  };
  const refused =
    errorCode(visibility.error) === 'FORBIDDEN' && /publish/i.test(errorMessage(visibility.error) ?? '');

  const addPerson = async (event: FormEvent) => {
    event.preventDefault();
    const answer = await upsert({ id, email, accessLevel: level });
    if (answer.data) {
      setEmail('');
      refetchCollaborators({ requestPolicy: 'network-only' });
    }
  };

  const problem = [access, revocation, transfer, rotation].map((r) => errorMessage(r.error)).find(Boolean);

  return (
    <Dialog title={`Share “${current.title}”`} onClose={onClose}>
      <div role="radiogroup" aria-labelledby="share-visibility" className="share__visibility">
        <p id="share-visibility" className="share__legend">
          Visibility
        </p>
        {VISIBILITIES.map((v) => (
          // The radio is named by its word alone; the hint describes it.
          <div key={v.value} className="share__choice">
            <input
              id={`share-visibility-${v.value}`}
              type="radio"
              name="visibility"
              value={v.value}
              checked={current.visibility === v.value}
              disabled={visibility.fetching}
              aria-describedby={`share-visibility-${v.value}-hint`}
              onChange={() => changeVisibility(v.value)}
            />
            <span>
              <label htmlFor={`share-visibility-${v.value}`}>{v.label}</label>{' '}
              <span id={`share-visibility-${v.value}-hint`} className="form__hint">
                {v.hint}
              </span>
            </span>
          </div>
        ))}
      </div>
      {visibility.error && (
        <p className="form__problem" role="alert">
          {errorMessage(visibility.error)}
          {refused ? ` ${PUBLISH_REFUSED}` : ''}
        </p>
      )}
      {current.shareToken ? (
        <div className="form__field share__link">
          <label htmlFor="share-link">Share link</label>
          <input
            id="share-link"
            readOnly
            value={shareLink(linkBase, current.shareToken)}
            onFocus={(e) => e.target.select()}
          />
          <div className="toolbar">
            <button
              type="button"
              className="button"
              onClick={async () =>
                setStatus(
                  (await copyText(shareLink(linkBase, current.shareToken as string)))
                    ? 'Link copied'
                    : 'Select the link and copy it',
                )
              }
            >
              Copy link
            </button>
            <button
              type="button"
              className="button"
              disabled={rotation.fetching}
              onClick={async () => {
                const answer = await rotate({ id });
                if (answer.data) {
                  setCurrent(answer.data.rotateDashboardShareToken);
                  setStatus('A new link was made; the old one no longer works');
                }
              }}
            >
              Rotate link
            </button>
          </div>
        </div>
      ) : (
        <p className="form__hint">Private dashboards have no link. Choose Link or Public to get one.</p>
      )}
      {status && <p role="status">{status}</p>}

      <h3>People with access</h3>
      <Problem message={errorMessage(collaborators.error)} />
      <table className="data-table">
        <thead>
          <tr>
            <th scope="col">Email</th>
            <th scope="col">Access</th>
            <th scope="col">
              <span className="visually-hidden">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {(collaborators.data?.dashboardCollaborators ?? []).map((c) => (
            <tr key={c.userId}>
              <td>{c.email}</td>
              <td>
                {c.isOwner ? (
                  'Owner'
                ) : (
                  <select
                    aria-label={`Access for ${c.email}`}
                    value={c.accessLevel}
                    onChange={async (e) => {
                      await upsert({
                        id,
                        email: c.email,
                        accessLevel: e.target.value as DashboardAccessLevel,
                      });
                      refetchCollaborators({ requestPolicy: 'network-only' });
                    }}
                  >
                    <option value="VIEWER">Can view</option>
                    <option value="EDITOR">Can edit</option>
                  </select>
                )}
              </td>
              <td>
                {!c.isOwner && (
                  <span className="toolbar">
                    <button
                      type="button"
                      className="button"
                      onClick={async () => {
                        await revoke({ id, userId: c.userId });
                        refetchCollaborators({ requestPolicy: 'network-only' });
                      }}
                    >
                      Remove {c.email}
                    </button>
                    {mayTransfer && (
                      <button
                        type="button"
                        className="button"
                        onClick={async () => {
                          const answer = await transferTo({ id, userId: c.userId });
                          if (answer.data) {
                            setCurrent(answer.data.transferDashboardOwnership);
                            refetchCollaborators({ requestPolicy: 'network-only' });
                          }
                        }}
                      >
                        Make {c.email} the owner
                      </button>
                    )}
                  </span>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <form className="form__row share__add" onSubmit={addPerson}>
        <TextField label="Person's email" type="email" required value={email} onChange={setEmail} />
        <Field label="Access level">
          {(control) => (
            <select
              {...control}
              value={level}
              onChange={(e) => setLevel(e.target.value as DashboardAccessLevel)}
            >
              <option value="VIEWER">Can view</option>
              <option value="EDITOR">Can edit</option>
            </select>
          )}
        </Field>
        <button type="submit" className="button" disabled={access.fetching}>
          Add person
        </button>
      </form>
      <Problem message={problem} />
    </Dialog>
  );
}
