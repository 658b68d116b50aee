// The password rule of the dashboard API (§5.3), restated for the screens so people see while typing
// what is still missing; the server's check is the one that counts.

export interface PolicyCheck {
  label: string;
  met: boolean;
}

export function passwordChecks(password: string): PolicyCheck[] {
  const length = [...password].length;
  return [
    { label: 'At least 12 characters', met: length >= 12 && length <= 1024 },
    { label: 'An uppercase letter (A–Z)', met: /[A-Z]/.test(password) },
    { label: 'A lowercase letter (a–z)', met: /[a-z]/.test(password) },
    { label: 'A digit (0–9)', met: /[0-9]/.test(password) },
    { label: 'A symbol (not a letter, digit or space)', met: /[^A-Za-z0-9\s]/.test(password) },
  ];
}

export function passwordAcceptable(password: string): boolean {
  return passwordChecks(password).every((check) => check.met);
}
