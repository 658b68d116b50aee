import { type FormEvent, useState } from 'react';
import { useMutation, useQuery } from 'urql';
import { errorMessage } from '../../lib/graphql/client.ts';
import {
  AdminCreateInviteDocument,
  AdminRevokeInviteDocument,
  ListPendingInvitesDocument,
  type UserRole,
} from '../../lib/graphql/generated.ts';
import { useLinkBase } from '../../lib/links.ts';
import { Field, Problem, TextField } from '../../ui/Field.tsx';
import { OneTimeSecret } from './OneTimeSecret.tsx';

export function InvitesTab() {
  const linkBase = useLinkBase();
  const [invites, refetch] = useQuery({ query: ListPendingInvitesDocument, requestPolicy: 'network-only' });
  const [created, create] = useMutation(AdminCreateInviteDocument);
  const [revoked, revoke] = useMutation(AdminRevokeInviteDocument);
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<UserRole>('EDITOR');
  const [hours, setHours] = useState(72);
  const again = () => refetch({ requestPolicy: 'network-only' });

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const answer = await create({ email, role, expiresInHours: hours });
    if (answer.data) {
      setEmail('');
      again();
    }
  };
  const made = created.data?.adminCreateInvite;
  return (
    <>
      <section className="admin__section" aria-labelledby="invite-heading">
        <h2 id="invite-heading">Invite someone</h2>
        <form className="form" onSubmit={submit}>
          <TextField label="Email" type="email" required value={email} onChange={setEmail} />
          <Field label="Role">
            {(control) => (
              <select {...control} value={role} onChange={(e) => setRole(e.target.value as UserRole)}>
                <option value="VIEWER">viewer</option>
                <option value="EDITOR">editor</option>
              </select>
            )}
          </Field>
          <TextField
            label="Valid for (hours)"
            type="number"
            min={1}
            max={336}
            value={hours}
            onChange={(value) => setHours(Number(value) || 72)}
          />
          <Problem message={errorMessage(created.error)} />
          <button type="submit" className="button button--primary" disabled={created.fetching}>
            Create invite
          </button>
        </form>
        {made && (
          <OneTimeSecret
            label="Invite link"
            value={`${linkBase}/invite/${encodeURIComponent(made.token)}`}
            note={`For ${made.invite.email} (${made.invite.role.toLowerCase()}), valid until ${new Date(made.invite.expiresAt).toLocaleString()}. Towpath sends no e-mail: pass the link on yourself. It is shown only now.`}
          />
        )}
      </section>
      <section className="admin__section" aria-labelledby="pending-heading">
        <h2 id="pending-heading">Pending invites</h2>
        <Problem message={errorMessage(invites.error) ?? errorMessage(revoked.error)} />
        {(invites.data?.listPendingInvites ?? []).length === 0 ? (
          <p>No pending invites.</p>
        ) : (
          <table className="data-table">
            <thead>
              <tr>
                <th scope="col">Email</th>
                <th scope="col">Role</th>
                <th scope="col">Expires</th>
                <th scope="col">Actions</th>
              </tr>
            </thead>
            <tbody>
              {(invites.data?.listPendingInvites ?? []).map((invite) =>
                invite ? (
                  <tr key={invite._id}>
                    <td>{invite.email}</td>
                    <td>{invite.role.toLowerCase()}</td>
                    <td>{new Date(invite.expiresAt).toLocaleString()}</td>
                    <td>
                      <button
                        type="button"
                        className="button"
                        onClick={async () => {
                          await revoke({ id: invite._id });
                          again();
                        }}
                      >
                        Revoke invite for {invite.email}
                      </button>
                    </td>
                  </tr>
                ) : null,
              )}
            </tbody>
          </table>
        )}
      </section>
    </>
  );
}
