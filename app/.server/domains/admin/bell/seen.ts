import { sql } from "drizzle-orm";
import { queryRows } from "../../../infrastructure/db/client";
import type { CurrentUser } from "../../auth/guards";

/** "Mark all as read": the administrator's bell counts only events after now. */
export async function markBellRead(current: Pick<CurrentUser, "user">) {
  await queryRows(sql`update users set admin_bell_seen_at = now() where id = ${current.user.id}`);
}
