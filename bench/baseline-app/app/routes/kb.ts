/** The `kb` search parameter in bytes (kB = 1000 bytes), between 0 and 2 MB. */
export function bytesFrom(request: Request) {
  const kb = Number(new URL(request.url).searchParams.get("kb") ?? "0");
  return Number.isFinite(kb) ? Math.min(Math.max(Math.round(kb * 1000), 0), 2_000_000) : 0;
}
