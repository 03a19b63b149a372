import { sql } from "drizzle-orm";
import { db } from "../../../infrastructure/db/client";
import { queryRows } from "../../../infrastructure/db/query";
import type { CurrentUser } from "../../auth";

/** "Mark all as read": the administrator's bell counts only events after now. */
export async function markBellRead(current: Pick<CurrentUser, "user">) {
  await queryRows(db(), sql`update users set admin_bell_seen_at = now() where id = ${current.user.id}`);
}
