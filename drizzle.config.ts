import { defineConfig } from "drizzle-kit";

// `npm run db:generate` writes a new migration into drizzle/ from src/store/schema.ts. Triggers, grants
// and roles are hand-written: `npx drizzle-kit generate --custom --name <what>`.
export default defineConfig({
  dialect: "postgresql",
  schema: "./src/store/schema.ts",
  out: "./drizzle",
});
