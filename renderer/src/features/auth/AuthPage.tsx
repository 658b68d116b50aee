import { type FormEvent, useState } from 'react';
import { useMutation, useQuery } from 'urql';
import { errorCode, errorMessage } from '../../lib/graphql/client.ts';
import {
  AcceptInviteDocument,
  PublicAuthPolicyDocument,
  RegisterDocument,
  RequestPasswordResetDocument,
  ResetPasswordDocument,
  SignInDocument,
} from '../../lib/graphql/generated.ts';
import { followLink, navigate, pathSegment, usePathname } from '../../lib/location.ts';
import { setSessionToken } from '../../lib/session.ts';
import { sessionEndedReason, setSessionEndedReason } from '../../lib/useSession.ts';
import { Problem, TextField } from '../../ui/Field.tsx';
import { NewPasswordField } from './PasswordField.tsx';
import { passwordAcceptable } from './password-policy.ts';
import '../../ui/forms.css';

/** Where to go after signing in: the page that sent the person here, if it is one of ours. */
function afterSignIn(): string {
  const next = new URLSearchParams(window.location.search).get('next');
  return next?.startsWith('/') && !next.startsWith('//') ? next : '/dashboards';
}

function startSession(token: string | null | undefined): void {
  if (!token) return;
  setSessionEndedReason(null);
  setSessionToken(token);
  navigate(afterSignIn(), { replace: true });
}

function SignIn() {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [forgot, setForgot] = useState(false);
  const [result, signIn] = useMutation(SignInDocument);
  const [policy] = useQuery({ query: PublicAuthPolicyDocument });
  const [resetResult, requestReset] = useMutation(RequestPasswordResetDocument);
  const ended = sessionEndedReason();
  const mode = policy.data?.publicAuthPolicy.registrationMode;

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const answer = await signIn({ email, password });
    startSession(answer.data?.authUser?.token);
  };

  return (
    <section className="page auth">
      <h1>Sign in</h1>
      {ended && (
        <p className="form__notice" role="status">
          {ended}
        </p>
      )}
      <form className="form" onSubmit={submit}>
        <TextField
          label="Email"
          type="email"
          autoComplete="username"
          required
          value={email}
          onChange={setEmail}
        />
        <TextField
          label="Password"
          type="password"
          autoComplete="current-password"
          required
          value={password}
          onChange={setPassword}
        />
        <Problem message={errorMessage(result.error)} />
        <button type="submit" className="button button--primary" disabled={result.fetching}>
          Sign in
        </button>
      </form>
      {mode === 'OPEN' && (
        <p>
          No account yet?{' '}
          <a href="/register" onClick={followLink('/register')}>
            Create one
          </a>
        </p>
      )}
      {mode === 'INVITE' && <p>New accounts are by invitation: ask an admin for an invite link.</p>}
      <p>
        <button type="button" className="button button--link" onClick={() => setForgot(!forgot)}>
          Forgot your password?
        </button>
      </p>
      {forgot && (
        <div className="form__notice">
          <p>
            Towpath sends no e-mail. Ask for a reset here, then an admin gives you a reset link by another way
            (in person, chat).
          </p>
          <button
            type="button"
            className="button"
            disabled={!email || resetResult.fetching}
            onClick={() => requestReset({ email })}
          >
            Ask an admin for a reset
          </button>
          {resetResult.data && <p role="status">Your request has been passed to the admins.</p>}
        </div>
      )}
    </section>
  );
}

function Register() {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [setupCode, setSetupCode] = useState('');
  const [policy] = useQuery({ query: PublicAuthPolicyDocument });
  const [result, register] = useMutation(RegisterDocument);
  const answer = policy.data?.publicAuthPolicy;
  // On the workstation before anyone has an account, the first account is the admin (§6.1).
  const firstRun = answer?.registrationMode === 'OPEN' && answer.registrationDefaultRole === 'ADMIN';

  // The API answers a missing and a wrong setup code alike (§6.1); only the page knows which it sent.
  const [sentCode, setSentCode] = useState('');
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setSentCode(setupCode.trim());
    const reply = await register({ email, password, setupCode: firstRun ? setupCode : null });
    startSession(reply.data?.registerUser?.token);
  };
  const refusedCode =
    firstRun &&
    errorCode(result.error) === 'FORBIDDEN' &&
    /setup code/i.test(errorMessage(result.error) ?? '');
  const problem = !refusedCode
    ? errorMessage(result.error)
    : sentCode === ''
      ? 'Enter the setup code to create the first admin.'
      : "That setup code is wrong: it is not this workstation's. Check it against the code in the workstation window or printed when Towpath started, and try again.";

  if (answer && answer.registrationMode !== 'OPEN')
    return (
      <section className="page auth">
        <h1>Create an account</h1>
        <p>
          {answer.registrationMode === 'INVITE'
            ? 'Accounts are by invitation only: ask an admin for an invite link.'
            : 'Registration is disabled here: ask an admin for an account.'}
        </p>
      </section>
    );

  return (
    <section className="page auth">
      <h1>{firstRun ? 'Create the first admin' : 'Create an account'}</h1>
      <form className="form" onSubmit={submit}>
        <TextField
          label="Email"
          type="email"
          required
          autoComplete="username"
          value={email}
          onChange={setEmail}
        />
        <NewPasswordField value={password} onChange={setPassword} />
        {firstRun && (
          <TextField
            label="Setup code"
            hint="Shown in the workstation window and printed when Towpath started."
            value={setupCode}
            onChange={setSetupCode}
          />
        )}
        <Problem message={problem} />
        <button
          type="submit"
          className="button button--primary"
          disabled={result.fetching || !passwordAcceptable(password)}
        >
          Create account
        </button>
      </form>
    </section>
  );
}

function AcceptInvite({ token }: { token: string }) {
  const [password, setPassword] = useState('');
  const [result, accept] = useMutation(AcceptInviteDocument);
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const reply = await accept({ token, password });
    startSession(reply.data?.acceptInvite?.token);
  };
  return (
    <section className="page auth">
      <h1>Accept your invitation</h1>
      <p>Choose a password for your new Towpath account.</p>
      <form className="form" onSubmit={submit}>
        <NewPasswordField value={password} onChange={setPassword} />
        <Problem message={errorMessage(result.error)} />
        <button
          type="submit"
          className="button button--primary"
          disabled={result.fetching || !passwordAcceptable(password)}
        >
          Accept invitation
        </button>
      </form>
    </section>
  );
}

function ResetPassword({ token }: { token: string }) {
  const [password, setPassword] = useState('');
  const [result, reset] = useMutation(ResetPasswordDocument);
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    await reset({ token, password });
  };
  return (
    <section className="page auth">
      <h1>Set a new password</h1>
      {result.data?.resetPassword ? (
        <p role="status">
          Your password has been changed.{' '}
          <a href="/sign-in" onClick={followLink('/sign-in')}>
            Sign in
          </a>{' '}
          with it.
        </p>
      ) : (
        <form className="form" onSubmit={submit}>
          <NewPasswordField label="New password" value={password} onChange={setPassword} />
          <Problem message={errorMessage(result.error)} />
          <button
            type="submit"
            className="button button--primary"
            disabled={result.fetching || !passwordAcceptable(password)}
          >
            Set password
          </button>
        </form>
      )}
    </section>
  );
}

/** /sign-in, /register, /invite/:token and /reset/:token. */
export default function AuthPage() {
  const [pathname] = usePathname();
  const section = pathSegment(pathname, 0);
  const token = pathSegment(pathname, 1);
  if (section === 'invite' && token) return <AcceptInvite token={token} />;
  if (section === 'reset' && token) return <ResetPassword token={token} />;
  if (section === 'register') return <Register />;
  return <SignIn />;
}
