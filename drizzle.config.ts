import { defineConfig } from 'drizzle-kit';

// `npm run db:generate` writes a new migration under server/db/migrations after a schema change;
// the workstation applies them at start (server/db/database.ts).
export default defineConfig({
  dialect: 'sqlite',
  schema: './server/db/schema.ts',
  out: './server/db/migrations',
});
