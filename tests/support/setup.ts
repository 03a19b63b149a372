import { afterAll, beforeAll, beforeEach } from "vitest";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseEnv, setEnv } from "~/.server/config/env";
import { localFileStorage, setFileStorage } from "~/.server/storage";
import { closeTestDatabase, openTestDatabase, resetTables } from "./database";

// Every test file gets its own database: PGlite in memory, or a fresh database on TEST_DATABASE_URL.
setEnv(parseEnv({ NODE_ENV: "test", APP_URL: "http://jumbe.test" }));

// ...and its own file storage in a temporary folder, whatever DATA_DIR a test configures.
const storageDir = mkdtempSync(path.join(os.tmpdir(), "jumbe-test-files-"));
setFileStorage(localFileStorage(storageDir));

beforeAll(async () => {
  await openTestDatabase();
});

beforeEach(async () => {
  setEnv(parseEnv({ NODE_ENV: "test", APP_URL: "http://jumbe.test" }));
  await resetTables();
});

afterAll(async () => {
  await closeTestDatabase();
  setFileStorage(undefined);
  rmSync(storageDir, { recursive: true, force: true });
});
