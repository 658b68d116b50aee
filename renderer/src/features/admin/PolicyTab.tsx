import { useEffect, useState } from 'react';
import { useMutation, useQuery } from 'urql';
import { errorMessage } from '../../lib/graphql/client.ts';
import {
  AuthPolicyDocument,
  type AuthPolicyQuery,
  SetAuthPolicyDocument,
} from '../../lib/graphql/generated.ts';
import { Checkbox, Field, Problem } from '../../ui/Field.tsx';

type Policy = Omit<AuthPolicyQuery['authPolicy'], 'policyEditLock'>;

const CHOICES: { key: keyof Policy; label: string; options: string[]; hint: string }[] = [
  {
    key: 'registrationMode',
    label: 'Registration',
    options: ['DISABLED', 'INVITE', 'OPEN'],
    hint: 'Who may create an account.',
  },
  {
    key: 'registrationDefaultRole',
    label: 'Role of new accounts',
    options: ['VIEWER', 'EDITOR'],
    hint: 'For open registration.',
  },
  {
    key: 'dashboardDefaultVisibility',
    label: 'Default visibility of new dashboards',
    options: ['PRIVATE', 'LINK', 'PUBLIC'],
    hint: 'Private for editors who may not publish.',
  },
  {
    key: 'executionMode',
    label: 'Execution mode',
    options: ['SAFE', 'TRUSTED'],
    hint: 'SAFE refuses new trusted content (scripts, trusted HTML).',
  },
];

export function PolicyTab() {
  const [policy] = useQuery({ query: AuthPolicyDocument, requestPolicy: 'network-only' });
  const [saved, save] = useMutation(SetAuthPolicyDocument);
  const [draft, setDraft] = useState<Policy | null>(null);
  const stored = saved.data?.setAuthPolicy ?? policy.data?.authPolicy;
  useEffect(() => {
    if (stored && !draft) {
      const {
        policyEditLock: _lock,
        __typename: _t,
        ...rest
      } = stored as AuthPolicyQuery['authPolicy'] & { __typename?: string };
      setDraft(rest);
    }
  }, [stored, draft]);
  if (!draft || !stored)
    return policy.error ? <Problem message={errorMessage(policy.error)} /> : <p>Loading…</p>;
  const locked = stored.policyEditLock;
  return (
    <form
      className="form"
      onSubmit={async (event) => {
        event.preventDefault();
        await save(draft);
      }}
    >
      <h2>Auth policy</h2>
      {locked && (
        <p className="form__notice">
          The policy is locked by configuration (POLICY_EDIT_LOCK); it can be read but not changed here.
        </p>
      )}
      {CHOICES.map((choice) => (
        <Field key={choice.key} label={choice.label} hint={choice.hint}>
          {(control) => (
            <select
              {...control}
              disabled={locked}
              value={String(draft[choice.key])}
              onChange={(e) => setDraft({ ...draft, [choice.key]: e.target.value })}
            >
              {choice.options.map((o) => (
                <option key={o} value={o}>
                  {o.toLowerCase()}
                </option>
              ))}
            </select>
          )}
        </Field>
      ))}
      <Checkbox
        label="Editors may publish dashboards (Link and Public)"
        disabled={locked}
        checked={draft.editorCanPublish}
        onChange={(editorCanPublish) => setDraft({ ...draft, editorCanPublish })}
      />
      <Checkbox
        label="List public dashboards to every signed-in user"
        disabled={locked}
        checked={draft.dashboardPublicListingEnabled}
        onChange={(dashboardPublicListingEnabled) => setDraft({ ...draft, dashboardPublicListingEnabled })}
      />
      <Problem message={errorMessage(saved.error)} />
      {saved.data && <p role="status">Policy saved.</p>}
      <button type="submit" className="button button--primary" disabled={locked || saved.fetching}>
        Save policy
      </button>
    </form>
  );
}
