import { isDatabaseUnavailableError } from "./availability";

/** PostgreSQL's unique_violation, wherever the driver put it (PGlite and node-postgres wrap errors differently). */
export function isUniqueViolation(error: unknown): boolean {
  for (let e: unknown = error; e && typeof e === "object"; e = (e as { cause?: unknown }).cause)
    if ((e as { code?: unknown }).code === "23505") return true;
  return false;
}

/** The SQLSTATEs of the error and of those it wraps (drizzle wraps the driver's). */
export function sqlStates(error: unknown): string[] {
  const codes: string[] = [];
  for (let e: unknown = error; e && typeof e === "object"; e = (e as { cause?: unknown }).cause) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === "string" && /^[0-9A-Z]{5}$/.test(code)) codes.push(code);
  }
  return codes;
}

// SQLSTATE classes of faults that pass: connection, transaction rollback (serialization, deadlock),
// insufficient resources, lock not available, operator intervention, system error.
const TRANSIENT_SQLSTATE = /^(08|40|53|55P03|57|58)/;
// Serialization failure, deadlock, and a unique key taken meanwhile by another transaction.
const RACE_SQLSTATE = /^(40001|40P01|23505)$/;

/** Whether the error (or one it wraps) is a database fault that a retry may not meet. */
export function isTransientFault(error: unknown): boolean {
  return sqlStates(error).some((code) => TRANSIENT_SQLSTATE.test(code));
}

/** Whether the error says another transaction got in the way, which the next try may not meet. */
export function isRace(error: unknown): boolean {
  return sqlStates(error).some((code) => RACE_SQLSTATE.test(code));
}

/**
 * Runs `work`, again after a pause (0.2 s, 0.4 s, 0.8 s...) while it fails for a moment only: a
 * transient SQLSTATE (a deadlock, a serialization failure) or the database or its pool away. For
 * work that must not be given up once begun, such as writing the answer of a call already made.
 */
export async function retryingTransientFaults<T>(
  work: () => Promise<T>,
  attempts: number,
  onRetry: (error: unknown, attempt: number) => void,
): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await work();
    } catch (error) {
      if (attempt >= attempts || !(isTransientFault(error) || isDatabaseUnavailableError(error))) throw error;
      onRetry(error, attempt);
      await new Promise((resolve) => setTimeout(resolve, 100 * 2 ** attempt));
    }
  }
}
