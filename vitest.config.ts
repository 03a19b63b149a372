import os from "node:os";
import path from "node:path";
import { execFileSync } from "node:child_process";
import { defineConfig } from "vitest/config";

// The product's words, compiled before any test imports them (scripts/messages.mjs, decision 071),
// unless the caller has just compiled them and reads them beside this run (test:quick's typecheck).
if (!process.env.JUMBE_MESSAGES_COMPILED)
  execFileSync(process.execPath, [path.resolve(import.meta.dirname, "scripts/messages.mjs")], { stdio: "inherit" });

const alias = {
  "~": path.resolve(import.meta.dirname, "app"),
  // This checkout's sandbox package, also where node_modules is shared with another checkout (a git worktree).
  "@jumbe/sandbox": path.resolve(import.meta.dirname, "sandbox"),
  // The browser build's record of its words (decision 072): none here.
  "virtual:jumbe/client-words": path.resolve(import.meta.dirname, "app/.server/infrastructure/http/no-client-words.ts"),
};

export default defineConfig({
  resolve: { alias },
  test: {
    // One more file at a time than the machine has CPUs: the integration files wait on sockets,
    // timers, child processes and PostgreSQL as much as they compute. On two CPUs three at a time take
    // 177 s instead of 203 s on PostgreSQL, 112 s instead of 120 s on PGlite (decision 059).
    maxWorkers: os.availableParallelism() + 1,
    // Transformed modules are kept on disk (node_modules/.experimental-vitest-cache), keyed by each
    // file's content and this configuration, which has no plugins: the PostgreSQL pass reuses what the
    // PGlite pass transformed (122 s of the workers' time → 10 s), and a later run on this machine both.
    experimental: { fsModuleCache: true },
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
            "tests/support/**/*.test.ts",
            "bench/lib/**/*.test.ts",
          ],
          environment: "node",
          setupFiles: ["tests/support/hang-setup.ts"],
          hookTimeout: 60_000,
          // A test's deadline detects a hang; it is no speed requirement (decision 126, issue 75).
          testTimeout: 60_000,
          // The files of a worker share its modules (decision 058): 12 s instead of 26 s.
          isolate: false,
        },
      },
      {
        resolve: { alias },
        // The sandboxes driven by the services' own client libraries (tests/fidelity/README.md): each file
        // starts the sandboxes it needs on loopback and needs no database.
        test: {
          name: "fidelity",
          include: ["tests/fidelity/**/*.test.ts"],
          environment: "node",
          setupFiles: ["tests/support/hang-setup.ts"],
          hookTimeout: 60_000,
          testTimeout: 60_000,
        },
      },
      {
        resolve: { alias },
        test: {
          name: "integration",
          include: ["tests/integration/**/*.test.ts"],
          // A worker runs its files one after another with the modules it has loaded kept (decision
          // 058), not a new process that loads and transforms the application again (about a second
          // of CPU a file). Each file gets its own storage, environment and watchers (setup.ts), and a
          // database emptied for it: its own on PostgreSQL, the worker's kept PGlite otherwise (a new
          // one when the last file closed it or changed its schema, decision 059). A cache of
          // something in a database is kept per database.
          isolate: false,
          environment: "node",
          setupFiles: ["tests/support/setup.ts"],
          globalSetup: ["tests/support/database-template.ts"],
          // A hang detector, not a speed requirement: a seeded demo took over 30 s on a loaded machine (issue 75).
          testTimeout: 120_000,
          hookTimeout: 60_000,
        },
      },
    ],
  },
});
