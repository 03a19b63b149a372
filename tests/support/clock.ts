/**
 * PGlite's clock counts whole milliseconds, and a statement now takes a fraction of one (decision
 * 041): rows written one after another can share `now()`, and a list ordered newest first then
 * orders them by their random ids. A test that checks that order waits for the next millisecond
 * between writes, so each is strictly later than the one before, as on PostgreSQL's microseconds.
 */
export async function nextMillisecond() {
  const start = Date.now();
  while (Date.now() === start) await new Promise((resolve) => setTimeout(resolve, 1));
}
