import os from "node:os";
import path from "node:path";
import { defineConfig } from "vitest/config";

const alias = { "~": path.resolve(import.meta.dirname, "app") };

export default defineConfig({
  resolve: { alias },
  test: {
    // Vitest's default is one file at a time on two CPUs (their number less one). The integration
    // files wait on sockets, timers and the database as much as they compute: two at a time take 272 s
    // instead of 383 s on PGlite here, every test file with a database of its own.
    maxWorkers: Math.max(2, os.availableParallelism() - 1),
    projects: [
      {
        resolve: { alias },
        // Opening a PGlite (a unit test's beforeAll) takes seconds on a busy machine: 10 s was not always enough.
        test: {
          name: "unit",
          include: [
            "app/**/*.test.{ts,tsx}",
            "sandbox/**/*.test.ts",
            "scripts/**/*.test.ts",
            "tests/architecture/**/*.test.ts",
            "tests/sandbox/**/*.test.ts",
          ],
          environment: "node",
          hookTimeout: 60_000,
          // The files of a worker share its modules (decision 058): 12 s instead of 26 s.
          isolate: false,
        },
      },
      {
        resolve: { alias },
        test: {
          name: "integration",
          include: ["tests/integration/**/*.test.ts"],
          // A worker runs its files one after another with the modules it has loaded kept (decision
          // 058): each file still gets its own database, storage, environment and watchers (setup.ts),
          // but not a new process that loads and transforms the application again (about a second
          // of CPU a file). A cache of something in a database is kept per database.
          isolate: false,
          environment: "node",
          setupFiles: ["tests/support/setup.ts"],
          globalSetup: ["tests/support/database-template.ts"],
          testTimeout: 30_000,
          hookTimeout: 60_000,
        },
      },
    ],
  },
});
