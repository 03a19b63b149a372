import { sql } from "drizzle-orm";
import { db } from "../../infrastructure/db/client";
import { queryRows } from "../../infrastructure/db/query";
import { m } from "~/paraglide/messages";

/** The tenant's connected WhatsApp Business accounts, as the template form offers them. */
export async function templateAccountChoices(organizationId: string) {
  const rows = await queryRows<{ id: string; waba_id: string; name: string | null }>(
    db(),
    sql`select id, waba_id, name from whatsapp_accounts where organization_id = ${organizationId} and status = 'connected' order by connected_at`,
  );
  return rows.map((r) => ({ id: r.id, label: r.name ? `${r.name} (${r.waba_id})` : m.templates_account_fallback({ waba: r.waba_id }) }));
}
