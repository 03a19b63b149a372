import type { MemberRef } from "~/lib/inbox";
import { m } from "~/paraglide/messages";

/** A member as the inbox names them, from a row's `<prefix>_id`, `<prefix>_first` and `<prefix>_last`. */
export function memberOf(row: Record<string, unknown>, prefix: string): MemberRef | null {
  const id = row[`${prefix}_id`];
  if (typeof id !== "string" || !id) return null;
  const name = [row[`${prefix}_first`], row[`${prefix}_last`]].filter((part) => typeof part === "string" && part).join(" ");
  return { id, name: name || m.inbox_former_member() };
}

/** The SQL columns memberOf reads, for users joined as `alias`. */
export const memberColumns = (alias: string, prefix: string) =>
  `${alias}.id as ${prefix}_id, ${alias}.first_name as ${prefix}_first, ${alias}.last_name as ${prefix}_last`;
