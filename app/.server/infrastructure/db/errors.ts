/** PostgreSQL's unique_violation, wherever the driver put it (PGlite and node-postgres wrap errors differently). */
export function isUniqueViolation(error: unknown): boolean {
  for (let e: unknown = error; e && typeof e === "object"; e = (e as { cause?: unknown }).cause)
    if ((e as { code?: unknown }).code === "23505") return true;
  return false;
}
