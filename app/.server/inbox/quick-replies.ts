// Placeholder until the saved answers module lands (issue 16).
import { rawQuery } from "../db/client";

export async function listQuickReplies(organizationId: string): Promise<{ id: string; shortcut: string; body: string }[]> {
  return rawQuery(`select id, shortcut, body from quick_replies where organization_id = $1 order by lower(shortcut)`, [organizationId]);
}
