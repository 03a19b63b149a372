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
  /** The oldest of them; `at` is the newest. */
  firstAt: string;
}

/**
 * Consecutive events that read the same (action, details, status) become one entry with a count,
 * so five sign-ins in a row do not fill the Recent Activity card with five identical lines.
 * `rows` come newest first; at most `limit` entries are returned.
 */
export function collapseRepeats(rows: ActivityRow[], limit: number): ActivityGroup[] {
  const groups: ActivityGroup[] = [];
  for (const row of rows) {
    const last = groups.at(-1);
    if (last && last.action === row.action && last.details === row.details && last.status === row.status && last.type === row.type) {
      last.count++;
      last.firstAt = row.at;
      continue;
    }
    if (groups.length === limit) break;
    groups.push({ ...row, count: 1, firstAt: row.at });
  }
  return groups;
}
