import { sql } from "drizzle-orm";
import type { Executor } from "../../infrastructure/db/client";
import { queryRows } from "../../infrastructure/db/query";
import { SMS_REPORT_QUEUE } from "./receivers";

/**
 * A person erased (contacts' erasure reaction): AT's delivery reports to their numbers, waiting in
 * the queue or finished and not yet swept, forget the number. A report still waiting finds its SMS by
 * AT's id alone (the number only matched a report that came before its SMS was stored). The jobs
 * table has no index on a report's number: an erasure is rare, and it reads the reports' queue once.
 */
export async function forgetReportNumbers(tx: Executor, erased: { organizationId: string; contactId: string }) {
  const [contact] = await queryRows<{ phone: string | null; wa_id: string | null }>(
    tx,
    sql`select phone, wa_id from contacts where organization_id = ${erased.organizationId} and id = ${erased.contactId}`,
  );
  const numbers = [contact?.phone, contact?.wa_id ? `+${contact.wa_id}` : null].filter((n): n is string => !!n);
  if (numbers.length)
    await tx.execute(sql`
      update jobs set payload = jsonb_set(payload, '{phone}', '""'::jsonb)
      where queue = ${SMS_REPORT_QUEUE} and payload ->> 'organizationId' = ${erased.organizationId}
        and payload ->> 'phone' = any(${sql.param(numbers)}::text[])`);
  return [];
}
