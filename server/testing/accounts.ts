// The accounts tests and end-to-end specs sign in with: the first admin, whom CREATE_ADMIN makes,
// and the password every test account shares.
export const ADMIN_EMAIL = 'admin@towpath.test';
export const PASSWORD = 'Str0ng-password!';
