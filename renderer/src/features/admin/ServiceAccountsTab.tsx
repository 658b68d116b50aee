// Service accounts (API §12): machine callers with scopes, and their fsa_ tokens. A token is shown once,
// right after it is issued or rotated — the server keeps only its hash and a preview — so the panel
// offers it with a copy button and never again.
import { type FormEvent, useState } from 'react';
import { useMutation, useQuery } from 'urql';
import { errorMessage } from '../../lib/graphql/client.ts';
import {
  AdminCreateServiceAccountDocument,
  AdminDeleteServiceAccountDocument,
  AdminIssueServiceAccountTokenDocument,
  AdminRevokeServiceAccountTokenDocument,
  AdminRotateServiceAccountTokenDocument,
  AdminServiceAccountsDocument,
  AdminServiceAccountTokensDocument,
  AdminUpdateServiceAccountDocument,
  type ServiceAccountFieldsFragment,
  type ServiceAccountScope,
  type ServiceAccountTokenFieldsFragment,
} from '../../lib/graphql/generated.ts';
import { Checkbox, Problem, TextField } from '../../ui/Field.tsx';
import { OneTimeSecret } from './OneTimeSecret.tsx';

const SCOPES: { scope: ServiceAccountScope; label: string }[] = [
  { scope: 'DATASOURCE_MINT', label: 'Mint datasource tokens' },
  { scope: 'DATASOURCE_DIAGNOSTICS_READ', label: 'Read datasource diagnostics' },
  { scope: 'OPS_READ', label: 'Read runtime metrics' },
];

const scopeLabel = (scope: ServiceAccountScope) => SCOPES.find((s) => s.scope === scope)?.label ?? scope;
const when = (iso: string | null | undefined, none: string) => (iso ? new Date(iso).toLocaleString() : none);

function toggled(scopes: readonly ServiceAccountScope[], scope: ServiceAccountScope, on: boolean) {
  return on ? [...new Set([...scopes, scope])] : scopes.filter((s) => s !== scope);
}

/** Checkboxes for a set of scopes, as a labelled group; `offer` limits which scopes are listed. */
function ScopeChoice({
  legend,
  value,
  offer = SCOPES.map((s) => s.scope),
  onChange,
}: {
  legend: string;
  value: readonly ServiceAccountScope[];
  offer?: readonly ServiceAccountScope[];
  onChange: (scopes: ServiceAccountScope[]) => void;
}) {
  return (
    <fieldset className="admin__scopes">
      <legend>{legend}</legend>
      {offer.map((scope) => (
        <Checkbox
          key={scope}
          label={scopeLabel(scope)}
          checked={value.includes(scope)}
          onChange={(checked) => onChange(toggled(value, scope, checked))}
        />
      ))}
    </fieldset>
  );
}

/** A data table's header row. */
function Columns({ names }: { names: string[] }) {
  return (
    <thead>
      <tr>
        {names.map((name) => (
          <th scope="col" key={name}>
            {name}
          </th>
        ))}
      </tr>
    </thead>
  );
}

type Issued = { token: string; account: string; record: ServiceAccountTokenFieldsFragment };

function TokensPanel({
  account,
  onChanged,
}: {
  account: ServiceAccountFieldsFragment;
  onChanged: () => void;
}) {
  const [tokens, refetch] = useQuery({
    query: AdminServiceAccountTokensDocument,
    variables: { serviceAccountId: account._id },
    requestPolicy: 'network-only',
  });
  const [issuing, issue] = useMutation(AdminIssueServiceAccountTokenDocument);
  const [rotating, rotate] = useMutation(AdminRotateServiceAccountTokenDocument);
  const [revoking, revoke] = useMutation(AdminRevokeServiceAccountTokenDocument);
  const [label, setLabel] = useState('');
  const [hours, setHours] = useState('');
  const [scopes, setScopes] = useState<ServiceAccountScope[]>(account.scopes);
  const [issued, setIssued] = useState<Issued | null>(null);
  const again = () => {
    refetch({ requestPolicy: 'network-only' });
    onChanged();
  };
  const expiresInHours = hours.trim() === '' ? null : Number(hours);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const answer = await issue({
      serviceAccountId: account._id,
      label: label.trim() || null,
      expiresInHours,
      scopes,
    });
    const made = answer.data?.adminIssueServiceAccountToken;
    if (!made) return;
    setIssued({ token: made.token, account: account.name, record: made.tokenRecord });
    setLabel('');
    again();
  };
  const problem = [issuing, rotating, revoking].map((r) => errorMessage(r.error)).find(Boolean);
  const list = tokens.data?.adminServiceAccountTokens ?? [];
  const headingId = `sa-tokens-${account._id}`;

  return (
    <section className="admin__section" aria-labelledby={headingId}>
      <h3 id={headingId}>Tokens of {account.name}</h3>
      <Problem message={errorMessage(tokens.error) ?? problem} />
      {issued && (
        <OneTimeSecret
          label="Token"
          value={issued.token}
          note={`For ${issued.account} (${issued.record.tokenPreview}), ${issued.record.expiresAt ? `valid until ${when(issued.record.expiresAt, '')}` : 'never expires'}. Send it as "Authorization: Bearer <token>". It is shown only now.`}
        />
      )}
      {list.length === 0 ? (
        <p>No tokens yet.</p>
      ) : (
        <table className="data-table">
          <Columns names={['Token', 'Label', 'Scopes', 'Expires', 'Last used', 'State', 'Actions']} />
          <tbody>
            {list.map((t) => {
              const name = t.label || t.tokenPreview;
              const expired =
                t.expiresAt !== null && t.expiresAt !== undefined && Date.parse(t.expiresAt) <= Date.now();
              return (
                <tr key={t._id}>
                  <td>
                    <code>{t.tokenPreview}</code>
                  </td>
                  <td>{t.label ?? ''}</td>
                  <td>{t.scopes.map(scopeLabel).join(', ')}</td>
                  <td>{when(t.expiresAt, 'never')}</td>
                  <td>{when(t.lastUsedAt, 'never')}</td>
                  <td>{t.revokedAt ? `revoked ${when(t.revokedAt, '')}` : expired ? 'expired' : 'active'}</td>
                  <td>
                    {t.revokedAt ? null : (
                      <div className="toolbar">
                        <button
                          type="button"
                          className="button"
                          onClick={async () => {
                            const answer = await rotate({ id: t._id, expiresInHours });
                            const made = answer.data?.adminRotateServiceAccountToken;
                            if (made)
                              setIssued({
                                token: made.token,
                                account: account.name,
                                record: made.tokenRecord,
                              });
                            again();
                          }}
                        >
                          Rotate token {name}
                        </button>
                        <button
                          type="button"
                          className="button button--danger"
                          onClick={async () => {
                            await revoke({ id: t._id });
                            again();
                          }}
                        >
                          Revoke token {name}
                        </button>
                      </div>
                    )}
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      )}
      <form className="form" onSubmit={submit} aria-label={`Issue a token for ${account.name}`}>
        <TextField label="Token label" value={label} maxLength={100} onChange={setLabel} />
        <TextField
          label="Valid for (hours)"
          hint="Empty: the token never expires. Also used when rotating."
          type="number"
          min={1}
          max={8760}
          value={hours}
          onChange={setHours}
        />
        <ScopeChoice legend="Token scopes" value={scopes} offer={account.scopes} onChange={setScopes} />
        <button type="submit" className="button button--primary" disabled={issuing.fetching}>
          Issue token
        </button>
      </form>
    </section>
  );
}

export function ServiceAccountsTab() {
  const [accounts, refetch] = useQuery({
    query: AdminServiceAccountsDocument,
    requestPolicy: 'network-only',
  });
  const [created, create] = useMutation(AdminCreateServiceAccountDocument);
  const [updated, update] = useMutation(AdminUpdateServiceAccountDocument);
  const [deleted, remove] = useMutation(AdminDeleteServiceAccountDocument);
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  const [scopes, setScopes] = useState<ServiceAccountScope[]>(['DATASOURCE_MINT']);
  const [active, setActive] = useState(true);
  const [openId, setOpenId] = useState<string | null>(null);
  const again = () => refetch({ requestPolicy: 'network-only' });

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const answer = await create({
      input: { name: name.trim(), description: description.trim(), scopes, active },
    });
    if (!answer.data) return;
    setName('');
    setDescription('');
    setOpenId(answer.data.adminCreateServiceAccount._id);
    again();
  };
  const problem = [updated, deleted].map((r) => errorMessage(r.error)).find(Boolean);
  const list = accounts.data?.adminServiceAccounts ?? [];
  const open = list.find((a) => a._id === openId) ?? null;

  return (
    <>
      <section className="admin__section" aria-labelledby="service-accounts-heading">
        <h2 id="service-accounts-heading">Service accounts</h2>
        <p className="form__hint">
          Scripts and other machines call Towpath with a service account's token. An inactive account's tokens
          stop working at once; a token never holds a scope its account has lost.
        </p>
        <Problem message={errorMessage(accounts.error) ?? problem} />
        {list.length === 0 ? (
          <p>No service accounts yet.</p>
        ) : (
          <table className="data-table">
            <Columns names={['Name', 'Description', 'Scopes', 'Active', 'Tokens', 'Last used', 'Actions']} />
            <tbody>
              {list.map((a) => (
                <tr key={a._id}>
                  <td>{a.name}</td>
                  <td>{a.description}</td>
                  <td>
                    {SCOPES.map(({ scope, label }) => (
                      <label key={scope} className="admin__scope">
                        <input
                          type="checkbox"
                          aria-label={`${label} for ${a.name}`}
                          checked={a.scopes.includes(scope)}
                          onChange={async (e) => {
                            await update({
                              id: a._id,
                              input: { scopes: toggled(a.scopes, scope, e.target.checked) },
                            });
                            again();
                          }}
                        />{' '}
                        <span aria-hidden="true">{label}</span>
                      </label>
                    ))}
                  </td>
                  <td>
                    <input
                      type="checkbox"
                      aria-label={`${a.name} is active`}
                      checked={a.active}
                      onChange={async (e) => {
                        await update({ id: a._id, input: { active: e.target.checked } });
                        again();
                      }}
                    />
                  </td>
                  <td>{a.tokenCount}</td>
                  <td>{when(a.lastUsedAt, 'never')}</td>
                  <td>
                    <div className="toolbar">
                      <button
                        type="button"
                        className="button"
                        aria-expanded={openId === a._id}
                        onClick={() => setOpenId(openId === a._id ? null : a._id)}
                      >
                        Tokens of {a.name}
                      </button>
                      <button
                        type="button"
                        className="button button--danger"
                        onClick={async () => {
                          if (!window.confirm(`Delete ${a.name}? Its tokens stop working at once.`)) return;
                          const answer = await remove({ id: a._id });
                          if (answer.data && openId === a._id) setOpenId(null);
                          again();
                        }}
                      >
                        Delete {a.name}
                      </button>
                    </div>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
        {open && <TokensPanel key={`${open._id}:${open.scopes.join()}`} account={open} onChanged={again} />}
      </section>
      <section className="admin__section" aria-labelledby="create-sa-heading">
        <h2 id="create-sa-heading">Create a service account</h2>
        <form className="form" onSubmit={submit}>
          <TextField label="Name" required minLength={3} maxLength={100} value={name} onChange={setName} />
          <TextField label="Description" value={description} onChange={setDescription} />
          <ScopeChoice legend="Scopes" value={scopes} onChange={setScopes} />
          <Checkbox label="Active" checked={active} onChange={setActive} />
          <Problem message={errorMessage(created.error)} />
          <button type="submit" className="button button--primary" disabled={created.fetching}>
            Create service account
          </button>
        </form>
      </section>
    </>
  );
}
