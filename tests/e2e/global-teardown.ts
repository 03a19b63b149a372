import { rmSync } from "node:fs";

/** Removes this run's temporary data directory (tests/e2e/server-env.ts). */
export default function globalTeardown() {
  const dir = process.env.JUMBE_E2E_DATA_DIR;
  if (dir) rmSync(dir, { recursive: true, force: true });
}
