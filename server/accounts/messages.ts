// Messages of dashboard spec §4 that more than one account operation (or the GraphQL door) uses.

export const LOGIN_REQUIRED = 'You must be logged in to perform this action';
export const INVALID_CREDENTIALS = 'Invalid credentials';
export const USER_NOT_FOUND = 'User not found';
export const EMAIL_TAKEN = 'A user with this email already exists';
/** The answer that does not say why a self-service sign-up was refused (§6.2, §6.3). */
export const DATA_NOT_VALID = 'Data provided is not valid';
