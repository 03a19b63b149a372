export interface ActivityRow {
  id: number;
  action: string;
  details: string | null;
  status: string;
  type: string;
  at: string;
}

export interface ActivityGroup extends ActivityRow {
  /** How many identical events in a row this entry stands for (1: a single event). */
  count: number;
  /** The oldest of them read; `at` is the newest. */
  firstAt: string;
  /** The run reaches past the rows read, so `count` and `firstAt` are lower bounds ("×30+"). */
  atLeast: boolean;
}

/**
 * Consecutive events that read the same (action, details, status) become one entry with a count,
 * so five sign-ins in a row do not fill the Recent Activity card with five identical lines.
 * `rows` come newest first; at most `limit` entries are returned. `more` says the log holds older
 * rows than those read: a run still open at the last row read may go on, so it is marked `atLeast`
 * rather than shown with a count that could be too small.
 */
export function collapseRepeats(rows: ActivityRow[], limit: number, { more = false }: { more?: boolean } = {}): ActivityGroup[] {
  const groups: ActivityGroup[] = [];
  let closed = false;
  for (const row of rows) {
    const last = groups.at(-1);
    if (last && last.action === row.action && last.details === row.details && last.status === row.status && last.type === row.type) {
      last.count++;
      last.firstAt = row.at;
      continue;
    }
    if (groups.length === limit) {
      closed = true;
      break;
    }
    groups.push({ ...row, count: 1, firstAt: row.at, atLeast: false });
  }
  const last = groups.at(-1);
  if (last && more && !closed) last.atLeast = true;
  return groups;
}
