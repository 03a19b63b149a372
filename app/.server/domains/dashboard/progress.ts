import { messagesUsedThisMonthAt } from "../billing";
import { sql } from "drizzle-orm";
import { db } from "../../infrastructure/db/client";
import { queryRows } from "../../infrastructure/db/query";
import { nairobiDate } from "~/lib/dates";

/**
 * What a tenant has done of the Get Started steps, and the Overview's figures that come with it, in
 * one statement (decision 036). Each step is a fact about the tenant's own records, never a record of
 * having seen the tutorial.
 */
export interface SetupProgress {
  /** A WhatsApp number connected and registered for the Cloud API (as the WhatsApp page says it). */
  whatsapp: boolean;
  /** At least one template Meta approved. */
  templates: boolean;
  contacts: boolean;
  /** A campaign or broadcast started (past its draft). */
  campaign: boolean;
  /** A message delivered: results to track. */
  results: boolean;
}

export interface OverviewFigures {
  /** "Messages this month": counted against the plan this Nairobi month (messagesUsedThisMonthSql). */
  messagesSent: number;
  /** Different contacts with a message either way in the last 30 Nairobi days, today included. */
  activeContacts: number;
  templatesApproved: number;
  templatesTotal: number;
  suspended: boolean;
  progress: SetupProgress;
}

export async function overviewFigures(organizationId: string, now = new Date()): Promise<OverviewFigures> {
  const today = nairobiDate(now);
  const [row] = await queryRows<{
    sent: string;
    active: string;
    approved: number;
    total: number;
    suspended: boolean;
    whatsapp: boolean;
    contacts: boolean;
    campaign: boolean;
    results: boolean;
  }>(
    db(),
    sql`
    select
      (select ${messagesUsedThisMonthAt("o.id", now)}
        from organizations o where o.id = ${organizationId}) as sent,
      (select coalesce(sum(contacts), 0) from contact_first_counts
        where organization_id = ${organizationId} and phone_number_id = '' and grain = 'day'
          and at >= (${today}::date - 29)::timestamp at time zone 'Africa/Nairobi'
          and previous_at < (${today}::date - 29)::timestamp at time zone 'Africa/Nairobi') as active,
      (select count(*) filter (where status = 'approved') from message_templates
        where organization_id = ${organizationId} and deleting_at is null)::int as approved,
      (select count(*) from message_templates where organization_id = ${organizationId} and deleting_at is null)::int as total,
      (select status = 'suspended' from organizations where id = ${organizationId}) as suspended,
      exists (select 1 from whatsapp_phone_numbers p join whatsapp_accounts a on a.id = p.account_id
              where p.organization_id = ${organizationId} and p.disconnected_at is null and p.platform_type = 'CLOUD_API'
                and a.status = 'connected') as whatsapp,
      exists (select 1 from contacts where organization_id = ${organizationId}) as contacts,
      exists (select 1 from campaigns where organization_id = ${organizationId} and status not in ('draft', 'awaiting_approval')) as campaign,
      -- Newest day first along the rollup's key: a tenant's first delivery is found without reading others' rows.
      coalesce((select true from message_stats_daily where organization_id = ${organizationId} and delivered > 0
                order by day desc limit 1), false) as results`,
  );
  return {
    messagesSent: Number(row?.sent ?? 0),
    activeContacts: Number(row?.active ?? 0),
    templatesApproved: Number(row?.approved ?? 0),
    templatesTotal: Number(row?.total ?? 0),
    suspended: !!row?.suspended,
    progress: {
      whatsapp: !!row?.whatsapp,
      templates: Number(row?.approved ?? 0) > 0,
      contacts: !!row?.contacts,
      campaign: !!row?.campaign,
      results: !!row?.results,
    },
  };
}

/** The spec's Account Status: Setup until a number is connected and a template approved, then Active; Suspended by the platform. */
export function accountStatus(figures: OverviewFigures) {
  if (figures.suspended) return "Suspended" as const;
  return figures.progress.whatsapp && figures.progress.templates ? ("Active" as const) : ("Setup" as const);
}
