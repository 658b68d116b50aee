// The schema's enums travel under their GraphQL names and are stored lowercase (§1; scopes as
// `datasource:mint` ...). This one table feeds the enum resolvers of the modules and codegen's
// `enumValues`, so resolvers see and return the stored values and their generated types say so.
export const STORED_ENUMS = {
  UserRole: { VIEWER: 'viewer', EDITOR: 'editor', ADMIN: 'admin' },
  RegistrationMode: { DISABLED: 'disabled', INVITE: 'invite', OPEN: 'open' },
  ExecutionMode: { SAFE: 'safe', TRUSTED: 'trusted' },
  DashboardVisibility: { PRIVATE: 'private', LINK: 'link', PUBLIC: 'public' },
  DashboardAccessLevel: { VIEWER: 'viewer', EDITOR: 'editor' },
  CredentialProfileType: { NONE: 'none', HEADER: 'header', BEARER: 'bearer', BASIC: 'basic' },
  BrokerProfileProtocol: { MQTT: 'mqtt' },
  ServiceAccountScope: {
    DATASOURCE_MINT: 'datasource:mint',
    DATASOURCE_DIAGNOSTICS_READ: 'datasource:diagnostics:read',
    OPS_READ: 'ops:read',
  },
} as const;
