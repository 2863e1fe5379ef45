import { defineConfig } from 'drizzle-kit';

// One schema (each domain context owns its tables; src/db/schema.ts gathers them) and one
// migrations folder, applied at start by src/db/migrate.ts on PGlite and PostgreSQL alike.
export default defineConfig({
  dialect: 'postgresql',
  schema: './src/db/schema.ts',
  out: './drizzle',
});
