import { defineConfig } from "drizzle-kit";

export default defineConfig({
  dialect: "postgresql",
  schema: "./app/.server/infrastructure/db/schema/index.ts",
  out: "./drizzle",
});
