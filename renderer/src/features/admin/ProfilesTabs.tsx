// Credential and broker profiles. Secrets are write-only: the form sends them, the list shows only
// their redacted shape ({"token": "***"}), and replacing one means typing it again.
import { type FormEvent, useState } from 'react';
import { useMutation, useQuery } from 'urql';
import { errorMessage } from '../../lib/graphql/client.ts';
import {
  AdminCreateBrokerProfileDocument,
  AdminCreateCredentialProfileDocument,
  AdminDeleteBrokerProfileDocument,
  AdminDeleteCredentialProfileDocument,
  AdminUpdateCredentialProfileDocument,
  BrokerProfilesDocument,
  CredentialProfilesDocument,
  type CredentialProfileType,
} from '../../lib/graphql/generated.ts';
import { Checkbox, Field, Problem, TextField } from '../../ui/Field.tsx';

const SECRET_KEYS: Record<CredentialProfileType, string[]> = {
  NONE: [],
  HEADER: ['headerValue'],
  BEARER: ['token'],
  BASIC: ['username', 'password'],
};

function SecretInputs({
  type,
  secret,
  onChange,
}: {
  type: CredentialProfileType;
  secret: Record<string, string>;
  onChange: (s: Record<string, string>) => void;
}) {
  return (
    <>
      {SECRET_KEYS[type].map((key) => (
        <Field key={key} label={`Secret ${key}`}>
          {(control) => (
            <input
              {...control}
              type={key === 'username' ? 'text' : 'password'}
              autoComplete="off"
              required
              value={secret[key] ?? ''}
              onChange={(e) => onChange({ ...secret, [key]: e.target.value })}
            />
          )}
        </Field>
      ))}
    </>
  );
}

export function CredentialsTab() {
  const [profiles, refetch] = useQuery({ query: CredentialProfilesDocument, requestPolicy: 'network-only' });
  const [created, create] = useMutation(AdminCreateCredentialProfileDocument);
  const [updated, update] = useMutation(AdminUpdateCredentialProfileDocument);
  const [deleted, remove] = useMutation(AdminDeleteCredentialProfileDocument);
  const [name, setName] = useState('');
  const [type, setType] = useState<CredentialProfileType>('BEARER');
  const [headerName, setHeaderName] = useState('');
  const [secret, setSecret] = useState<Record<string, string>>({});
  const [publicUse, setPublicUse] = useState(false);
  const [replacing, setReplacing] = useState<{
    id: string;
    type: CredentialProfileType;
    secret: Record<string, string>;
  } | null>(null);
  const again = () => refetch({ requestPolicy: 'network-only' });

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const answer = await create({
      input: {
        name,
        type,
        allowPublicUse: publicUse,
        ...(type === 'HEADER' ? { metadata: { headerName } } : {}),
        ...(type === 'NONE' ? {} : { secret }),
      },
    });
    if (answer.data) {
      setName('');
      setSecret({});
      again();
    }
  };
  const problem = [updated, deleted].map((r) => errorMessage(r.error)).find(Boolean);
  return (
    <>
      <section className="admin__section" aria-labelledby="credentials-heading">
        <h2 id="credentials-heading">Credential profiles</h2>
        <Problem message={problem} />
        <table className="data-table">
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Type</th>
              <th scope="col">Stored secret</th>
              <th scope="col">Public use</th>
              <th scope="col">Actions</th>
            </tr>
          </thead>
          <tbody>
            {(profiles.data?.credentialProfiles ?? []).map((p) => (
              <tr key={p._id}>
                <td>{p.name}</td>
                <td>
                  {p.type}
                  {p.type === 'HEADER' && typeof p.metadata.headerName === 'string'
                    ? ` (${p.metadata.headerName})`
                    : ''}
                </td>
                <td className="admin__json">
                  {p.secretShape ? JSON.stringify(p.secretShape) : 'none'}
                  {p.secretNeedsReentry ? ' — sealed with another key: enter it again' : ''}
                </td>
                <td>{p.allowPublicUse ? 'allowed' : 'no'}</td>
                <td>
                  <div className="toolbar">
                    <button
                      type="button"
                      className="button"
                      onClick={() => setReplacing({ id: p._id, type: p.type, secret: {} })}
                    >
                      Replace secret of {p.name}
                    </button>
                    <button
                      type="button"
                      className="button button--danger"
                      onClick={async () => {
                        await remove({ id: p._id });
                        again();
                      }}
                    >
                      Delete {p.name}
                    </button>
                  </div>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
        {replacing && (
          <form
            className="form"
            onSubmit={async (event) => {
              event.preventDefault();
              const answer = await update({ id: replacing.id, input: { secret: replacing.secret } });
              if (answer.data) {
                setReplacing(null);
                again();
              }
            }}
          >
            <h3>Replace the secret</h3>
            <SecretInputs
              type={replacing.type}
              secret={replacing.secret}
              onChange={(s) => setReplacing({ ...replacing, secret: s })}
            />
            <button type="submit" className="button button--primary">
              Save secret
            </button>
          </form>
        )}
      </section>
      <section className="admin__section" aria-labelledby="new-credential-heading">
        <h2 id="new-credential-heading">New credential profile</h2>
        <form className="form" onSubmit={submit}>
          <TextField label="Name" required maxLength={100} value={name} onChange={setName} />
          <Field label="Type">
            {(control) => (
              <select
                {...control}
                value={type}
                onChange={(e) => {
                  setType(e.target.value as CredentialProfileType);
                  setSecret({});
                }}
              >
                {(Object.keys(SECRET_KEYS) as CredentialProfileType[]).map((t) => (
                  <option key={t} value={t}>
                    {t}
                  </option>
                ))}
              </select>
            )}
          </Field>
          {type === 'HEADER' && (
            <TextField label="Header name" required value={headerName} onChange={setHeaderName} />
          )}
          <SecretInputs type={type} secret={secret} onChange={setSecret} />
          <Checkbox
            label="Allow use by link and public viewers"
            checked={publicUse}
            onChange={setPublicUse}
          />
          <Problem message={errorMessage(created.error)} />
          <button type="submit" className="button button--primary" disabled={created.fetching}>
            Create credential profile
          </button>
        </form>
      </section>
    </>
  );
}

export function BrokersTab() {
  const [brokers, refetch] = useQuery({ query: BrokerProfilesDocument, requestPolicy: 'network-only' });
  const [credentials] = useQuery({ query: CredentialProfilesDocument, requestPolicy: 'network-only' });
  const [created, create] = useMutation(AdminCreateBrokerProfileDocument);
  const [deleted, remove] = useMutation(AdminDeleteBrokerProfileDocument);
  const [name, setName] = useState('');
  const [url, setUrl] = useState('mqtt://');
  const [credential, setCredential] = useState('');
  const [allowlist, setAllowlist] = useState('');
  const [publicUse, setPublicUse] = useState(false);
  const again = () => refetch({ requestPolicy: 'network-only' });
  const basic = (credentials.data?.credentialProfiles ?? []).filter((p) => p.type === 'BASIC');

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const answer = await create({
      input: {
        name,
        brokerUrl: url,
        credentialProfileId: credential || null,
        topicAllowlist: allowlist
          .split('\n')
          .map((t) => t.trim())
          .filter(Boolean),
        allowPublicUse: publicUse,
      },
    });
    if (answer.data) {
      setName('');
      again();
    }
  };
  return (
    <>
      <section className="admin__section" aria-labelledby="brokers-heading">
        <h2 id="brokers-heading">Broker profiles</h2>
        <Problem message={errorMessage(deleted.error)} />
        <table className="data-table">
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Broker</th>
              <th scope="col">Topics allowed</th>
              <th scope="col">Public use</th>
              <th scope="col">Actions</th>
            </tr>
          </thead>
          <tbody>
            {(brokers.data?.brokerProfiles ?? []).map((b) => (
              <tr key={b._id}>
                <td>{b.name}</td>
                <td>{b.brokerUrl}</td>
                <td>{b.topicAllowlist.length === 0 ? 'all' : b.topicAllowlist.join(', ')}</td>
                <td>{b.allowPublicUse ? 'allowed' : 'no'}</td>
                <td>
                  <button
                    type="button"
                    className="button button--danger"
                    onClick={async () => {
                      await remove({ id: b._id });
                      again();
                    }}
                  >
                    Delete {b.name}
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </section>
      <section className="admin__section" aria-labelledby="new-broker-heading">
        <h2 id="new-broker-heading">New broker profile</h2>
        <form className="form" onSubmit={submit}>
          <TextField label="Name" required value={name} onChange={setName} />
          <TextField
            label="Broker URL"
            hint="mqtt:// or mqtts://, without user name or password (those go in a BASIC credential profile)."
            required
            value={url}
            onChange={setUrl}
          />
          <Field label="Credential profile">
            {(control) => (
              <select {...control} value={credential} onChange={(e) => setCredential(e.target.value)}>
                <option value="">(none)</option>
                {basic.map((p) => (
                  <option key={p._id} value={p._id}>
                    {p.name}
                  </option>
                ))}
              </select>
            )}
          </Field>
          <Field
            label="Topic allowlist"
            hint="One MQTT filter a line (e.g. shop/#); empty allows every topic."
          >
            {(control) => (
              <textarea
                {...control}
                rows={3}
                value={allowlist}
                onChange={(e) => setAllowlist(e.target.value)}
              />
            )}
          </Field>
          <Checkbox
            label="Allow use by link and public viewers"
            checked={publicUse}
            onChange={setPublicUse}
          />
          <Problem message={errorMessage(created.error)} />
          <button type="submit" className="button button--primary" disabled={created.fetching}>
            Create broker profile
          </button>
        </form>
      </section>
    </>
  );
}
