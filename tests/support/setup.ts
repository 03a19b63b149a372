import { afterAll, beforeAll, beforeEach } from "vitest";
import { parseEnv, setEnv } from "~/.server/config/env";
import { closeTestDatabase, openTestDatabase, resetTables } from "./database";

// Every test file gets its own database: PGlite in memory, or a fresh database on TEST_DATABASE_URL.
setEnv(parseEnv({ NODE_ENV: "test", APP_URL: "http://jumbe.test" }));

beforeAll(async () => {
  await openTestDatabase();
});

beforeEach(async () => {
  setEnv(parseEnv({ NODE_ENV: "test", APP_URL: "http://jumbe.test" }));
  await resetTables();
});

afterAll(async () => {
  await closeTestDatabase();
});
