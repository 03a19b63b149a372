import { sql } from "drizzle-orm";
import { db } from "../../../infrastructure/db/client";
import { queryRows } from "../../../infrastructure/db/query";
import type { PlatformScope } from "../../../infrastructure/db/scope";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** INV-2026-000123, RCT-2026-000001, CRN-2026-000004. */
const INVOICE_NUMBER = /^(INV|RCT|CRN)-\d{4}-\d{1,}$/i;

/**
 * Where an exact id or invoice number leads: an organisation's, user's, invoice's, dispute's,
 * WhatsApp account's or number's, template's console page; null when the text is neither or
 * nothing has it. One statement, each branch a primary-key or unique-index lookup.
 */
export async function exactTarget(_scope: PlatformScope, query: string): Promise<string | null> {
  const text = query.trim();
  if (INVOICE_NUMBER.test(text)) {
    const [row] = await queryRows<{ id: string }>(db(), sql`select id from invoices where number = ${text.toUpperCase()}`);
    return row ? `/admin/billing/invoices/${row.id}` : null;
  }
  if (!UUID.test(text)) return null;
  const id = text.toLowerCase();
  const [row] = await queryRows<{ kind: string; id: string }>(
    db(),
    sql`
    select 'organization' as kind, id::text as id from organizations where id = ${id}::uuid
    union all select 'user', organization_id::text from users where id = ${id}::uuid
    union all select 'invoice', id::text from invoices where id = ${id}::uuid
    union all select 'dispute', id::text from invoice_disputes where id = ${id}::uuid
    union all select 'whatsapp', id::text from whatsapp_accounts where id = ${id}::uuid
    union all select 'whatsapp', account_id::text from whatsapp_phone_numbers where id = ${id}::uuid
    union all select 'template', id::text from message_templates where id = ${id}::uuid
    limit 1`,
  );
  if (!row) return null;
  switch (row.kind) {
    case "organization":
    case "user":
      return `/admin/users/${row.id}`;
    case "invoice":
      return `/admin/billing/invoices/${row.id}`;
    case "dispute":
      return `/admin/billing/disputes/${row.id}`;
    case "whatsapp":
      return `/admin/whatsapp/${row.id}`;
    default:
      return `/admin/templates/${row.id}`;
  }
}
