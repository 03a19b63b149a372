import { existsSync, mkdirSync, rmSync, writeFileSync } from "node:fs";

/**
 * Makes `target` once per run, whichever of the run's worker processes asks first; the others wait
 * for it. Workers are processes of their own (vitest's and Playwright's alike): a directory made
 * with mkdir next to the target is the lock, a file next to it says it is ready. `make` starts from
 * an empty `target` (what a failed attempt left is removed) and writes it whole; when it throws, the
 * lock is released and the next asker tries again. `deadlineMs` tells a maker that hung or failed in
 * another worker from a slow one; it is no speed requirement.
 */
export async function madeOnce(target: string, deadlineMs: number, make: () => Promise<void>): Promise<void> {
  const ready = `${target}.ready`;
  const lock = `${target}.lock`;
  const deadline = Date.now() + deadlineMs;
  while (!existsSync(ready)) {
    if (Date.now() > deadline) throw new Error(`nothing made at ${target}: another worker's attempt failed or hung`);
    try {
      mkdirSync(lock);
    } catch {
      // Another worker is making it.
      await new Promise((resolve) => setTimeout(resolve, 250));
      continue;
    }
    try {
      if (existsSync(ready)) break;
      rmSync(target, { recursive: true, force: true });
      await make();
      writeFileSync(ready, "");
    } finally {
      rmSync(lock, { recursive: true, force: true });
    }
  }
}
