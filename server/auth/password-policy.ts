export const WEAK_PASSWORD =
  'Password must be at least 12 characters long and contain an uppercase letter, a lowercase letter, a digit and a symbol';

/** §5.3: 12–1024 code points with an uppercase letter, a lowercase letter, a digit and a symbol. */
export function isStrongPassword(password: string): boolean {
  const length = [...password].length;
  if (length < 12 || length > 1024) return false;
  return (
    /[A-Z]/.test(password) &&
    /[a-z]/.test(password) &&
    /[0-9]/.test(password) &&
    /[^\sA-Za-z0-9]/u.test(password)
  );
}
