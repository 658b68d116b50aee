import { useMe } from '../lib/graphql/me.ts';
import { followLink, navigate } from '../lib/location.ts';
import { setSessionToken } from '../lib/session.ts';
import { setSessionEndedReason } from '../lib/useSession.ts';

/** Who is signed in, with "Sign out"; or the way to sign in. In the frame on every screen. */
export function AccountMenu() {
  const { user } = useMe();
  if (!user)
    return (
      <a className="account__sign-in" href="/sign-in" onClick={followLink('/sign-in')}>
        Sign in
      </a>
    );
  return (
    <div className="account">
      <span className="account__who">
        {user.email} <span className="account__role">({user.role.toLowerCase()})</span>
      </span>
      <button
        type="button"
        className="account__sign-out"
        onClick={() => {
          // The session is a bearer the server cannot revoke: forgetting it here is signing out.
          setSessionEndedReason(null);
          setSessionToken(null);
          navigate('/sign-in');
        }}
      >
        Sign out
      </button>
    </div>
  );
}
