import { type FormEvent, useState } from 'react';
import { useMutation, useQuery } from 'urql';
import { errorMessage } from '../../lib/graphql/client.ts';
import {
  AdminCreateUserDocument,
  AdminDeleteUserDocument,
  AdminIssuePasswordResetDocument,
  AdminUpdateUserDocument,
  ListAllUsersDocument,
  type UserRole,
} from '../../lib/graphql/generated.ts';
import { useLinkBase } from '../../lib/links.ts';
import { Checkbox, Field, Problem, TextField } from '../../ui/Field.tsx';
import { OneTimeSecret } from './OneTimeSecret.tsx';

const ROLES: UserRole[] = ['VIEWER', 'EDITOR', 'ADMIN'];

export function UsersTab() {
  const linkBase = useLinkBase();
  const [users, refetch] = useQuery({ query: ListAllUsersDocument, requestPolicy: 'network-only' });
  const [created, create] = useMutation(AdminCreateUserDocument);
  const [updated, update] = useMutation(AdminUpdateUserDocument);
  const [deleted, remove] = useMutation(AdminDeleteUserDocument);
  const [reset, issueReset] = useMutation(AdminIssuePasswordResetDocument);
  const [resetFor, setResetFor] = useState<string | null>(null);
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [role, setRole] = useState<UserRole>('VIEWER');
  const [active, setActive] = useState(true);
  const again = () => refetch({ requestPolicy: 'network-only' });

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const answer = await create({ email, password, role, active });
    if (answer.data) {
      setEmail('');
      setPassword('');
      again();
    }
  };
  const problem = [updated, deleted, reset].map((r) => errorMessage(r.error)).find(Boolean);
  const list = (users.data?.listAllUsers ?? []).filter((u) => u !== null);

  return (
    <>
      <section className="admin__section" aria-labelledby="users-heading">
        <h2 id="users-heading">Users</h2>
        <Problem message={errorMessage(users.error) ?? problem} />
        <table className="data-table">
          <thead>
            <tr>
              <th scope="col">Email</th>
              <th scope="col">Role</th>
              <th scope="col">Active</th>
              <th scope="col">Registered</th>
              <th scope="col">Last sign-in</th>
              <th scope="col">Actions</th>
            </tr>
          </thead>
          <tbody>
            {list.map((u) => (
              <tr key={u._id}>
                <td>{u.email}</td>
                <td>
                  <select
                    aria-label={`Role of ${u.email}`}
                    value={u.role}
                    onChange={async (e) => {
                      await update({ id: u._id, role: e.target.value as UserRole });
                      again();
                    }}
                  >
                    {ROLES.map((r) => (
                      <option key={r} value={r}>
                        {r.toLowerCase()}
                      </option>
                    ))}
                  </select>
                </td>
                <td>
                  <input
                    type="checkbox"
                    aria-label={`${u.email} is active`}
                    checked={u.active}
                    onChange={async (e) => {
                      await update({ id: u._id, active: e.target.checked });
                      again();
                    }}
                  />
                </td>
                <td>{new Date(u.registrationDate).toLocaleString()}</td>
                <td>
                  {u.lastLogin === u.registrationDate ? 'never' : new Date(u.lastLogin).toLocaleString()}
                </td>
                <td>
                  <div className="toolbar">
                    <button
                      type="button"
                      className="button"
                      onClick={async () => {
                        setResetFor(u.email);
                        await issueReset({ id: u._id });
                      }}
                    >
                      Reset link for {u.email}
                    </button>
                    <button
                      type="button"
                      className="button button--danger"
                      disabled={u.active}
                      title={u.active ? 'Deactivate the user before deleting' : undefined}
                      onClick={async () => {
                        if (!window.confirm(`Delete ${u.email}? Their dashboards pass to you.`)) return;
                        await remove({ id: u._id });
                        again();
                      }}
                    >
                      Delete {u.email}
                    </button>
                  </div>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
        {reset.data && resetFor && (
          <OneTimeSecret
            label="Reset link"
            value={`${linkBase}/reset/${encodeURIComponent(reset.data.adminIssuePasswordReset.token)}`}
            note={`For ${resetFor}, valid until ${new Date(reset.data.adminIssuePasswordReset.expiresAt).toLocaleString()}. Hand it over in person or by chat; it is not shown again.`}
          />
        )}
      </section>
      <section className="admin__section" aria-labelledby="create-user-heading">
        <h2 id="create-user-heading">Create a user</h2>
        <form className="form" onSubmit={submit}>
          <TextField label="Email" type="email" required value={email} onChange={setEmail} />
          <TextField
            label="Password"
            hint="At least 12 characters with an uppercase and a lowercase letter, a digit and a symbol."
            type="password"
            autoComplete="new-password"
            required
            value={password}
            onChange={setPassword}
          />
          <Field label="Role">
            {(control) => (
              <select {...control} value={role} onChange={(e) => setRole(e.target.value as UserRole)}>
                {ROLES.map((r) => (
                  <option key={r} value={r}>
                    {r.toLowerCase()}
                  </option>
                ))}
              </select>
            )}
          </Field>
          <Checkbox label="Active" checked={active} onChange={setActive} />
          <Problem message={errorMessage(created.error)} />
          <button type="submit" className="button button--primary" disabled={created.fetching}>
            Create user
          </button>
        </form>
      </section>
    </>
  );
}
