import { sql, type SQL } from "drizzle-orm";
import { db, type Executor } from "../../infrastructure/db/client";
import { countAffected, queryRows } from "../../infrastructure/db/query";
import type { CampaignAudience, LeftOutReason, ParameterSource } from "../../infrastructure/db/schema/campaigns";
import { contactConditions, phoneHash, getSegment } from "../contacts";
import { contactFilterOf } from "~/lib/contact-filter";
import { normaliseRecipient } from "../messaging";
import { missingValueCondition } from "./variables";
import { refuseCampaign } from "./refusals";
import { isRefusal } from "../../infrastructure/refusal";
import { formatNumber } from "~/lib/dates";
import { m } from "~/paraglide/messages";

/** Numbers a campaign may name directly (the API's `phones`, a pasted or uploaded list). */
export const AUDIENCE_PHONES_MAX = 10_000;
export const AUDIENCE_CONTACT_IDS_MAX = 10_000;
export const AUDIENCE_TAGS_MAX = 20;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The audience as given, checked and tidied: a segment of this tenant, known ids, at most so many numbers. */
export async function checkAudience(organizationId: string, input: CampaignAudience): Promise<CampaignAudience> {
  const audience: CampaignAudience = {};
  if (input.segmentId) {
    try {
      audience.segmentId = (await getSegment(organizationId, String(input.segmentId))).id;
    } catch (error) {
      if (isRefusal(error, "contact")) throw refuseCampaign(404, "invalid_audience", m.messaging_audience_no_segment(), "audience");
      throw error;
    }
  }
  const tags = [...new Set((input.tags ?? []).map((t) => String(t).replace(/\s+/g, " ").trim().toLowerCase()).filter(Boolean))];
  if (tags.length > AUDIENCE_TAGS_MAX)
    throw refuseCampaign(422, "invalid_audience", m.messaging_audience_too_many_tags({ max: AUDIENCE_TAGS_MAX }), "audience");
  if (tags.length) audience.tags = tags;
  const ids = [...new Set(input.contactIds ?? [])];
  if (ids.length > AUDIENCE_CONTACT_IDS_MAX)
    throw refuseCampaign(
      422,
      "invalid_audience",
      m.messaging_audience_too_many_contacts({ max: formatNumber(AUDIENCE_CONTACT_IDS_MAX) }),
      "audience",
    );
  if (ids.some((id) => !UUID.test(String(id))))
    throw refuseCampaign(422, "invalid_audience", m.messaging_audience_bad_contact_id(), "audience");
  if (ids.length) audience.contactIds = ids;
  const phones = (input.phones ?? []).map((p) => String(p).trim()).filter(Boolean);
  if (phones.length > AUDIENCE_PHONES_MAX)
    throw refuseCampaign(
      422,
      "invalid_audience",
      m.messaging_audience_too_many_numbers({ max: formatNumber(AUDIENCE_PHONES_MAX) }),
      "audience",
    );
  if (phones.length) audience.phones = phones;
  if (input.everyone) audience.everyone = true;
  if (!audience.segmentId && !audience.tags && !audience.contactIds && !audience.phones && !audience.everyone)
    throw refuseCampaign(422, "invalid_audience", m.messaging_audience_required(), "audience");
  return audience;
}

/** The contacts the audience's segment, tags, ids and "everyone opted in" select, as SQL on `c`. */
export async function contactSources(organizationId: string, audience: CampaignAudience): Promise<SQL> {
  const parts: SQL[] = [];
  if (audience.segmentId) {
    const segment = await getSegment(organizationId, audience.segmentId);
    parts.push(sql`(${contactConditions(organizationId, contactFilterOf(segment.filter))})`);
  }
  if (audience.tags?.length) parts.push(sql`c.tags && ${sql.param(audience.tags)}::text[]`);
  if (audience.contactIds?.length) parts.push(sql`c.id = any(${sql.param(audience.contactIds)}::uuid[])`);
  if (audience.everyone) parts.push(sql`c.opt_in = 'opted_in'`);
  return parts.length ? sql`(${sql.join(parts, sql` or `)})` : sql`false`;
}

export interface Rules {
  organizationId: string;
  marketing: boolean;
  parameters: ParameterSource[];
}

/** Each contact the sources select, with why it is left out (null: it gets the message). */
export function contactRows(rules: Rules, sources: SQL) {
  return sql`
    select c.id as contact_id, c.phone,
           case when c.phone is null then 'invalid_number'
                when ${rules.marketing} and c.opt_in <> 'opted_in' then 'not_opted_in'
                when ${missingValueCondition(rules.parameters)} then 'missing_value' end as reason
    from contacts c where c.organization_id = ${rules.organizationId} and ${sources}`;
}

/** The numbers given directly, each once, valid, with their contact (if any) and tombstone: with why each is left out. */
export function numberRows(rules: Rules, sources: SQL, numbers: string[]) {
  const hashes = numbers.map((n) => phoneHash(rules.organizationId, n));
  return sql`
    select c.id as contact_id, p.phone, p.ord,
           case when t.phone_hash is not null then 'erased'
                when c.id is not null and ${sources} then 'duplicate'
                when ${rules.marketing} and coalesce(c.opt_in, 'unknown') <> 'opted_in' then 'not_opted_in'
                when ${missingValueCondition(rules.parameters, sql`p.phone`)} then 'missing_value' end as reason
    from unnest(${sql.param(numbers)}::text[], ${sql.param(hashes)}::text[]) with ordinality as p(phone, hash, ord)
    left join contacts c on c.organization_id = ${rules.organizationId} and c.phone = p.phone
    left join contact_tombstones t on t.organization_id = ${rules.organizationId} and t.phone_hash = p.hash`;
}

/** The numbers given, split: valid ones in E.164 (each once, in order), invalid ones as given, and repeats counted. */
export function splitNumbers(phones: string[]) {
  const valid: string[] = [];
  const invalid: string[] = [];
  const seen = new Set<string>();
  let duplicates = 0;
  for (const raw of phones) {
    let number: string;
    try {
      number = normaliseRecipient(raw);
    } catch (error) {
      if (!isRefusal(error, "send")) throw error;
      if (seen.has(`invalid:${raw}`)) duplicates++;
      else {
        seen.add(`invalid:${raw}`);
        invalid.push(raw.slice(0, 40));
      }
      continue;
    }
    if (seen.has(number)) duplicates++;
    else {
      seen.add(number);
      valid.push(number);
    }
  }
  return { valid, invalid, duplicates };
}

export interface AudienceCount {
  /** Everyone the audience named (each number once, plus the repeats). */
  total: number;
  /** Those who will get the message. */
  recipients: number;
  leftOut: Partial<Record<LeftOutReason, number>>;
}

/** Before confirming: how many the audience reaches and how many are left out, by reason. Stores nothing. */
export async function countAudience(rules: Rules, audience: CampaignAudience, sources: SQL): Promise<AudienceCount> {
  const numbers = splitNumbers(audience.phones ?? []);
  const leftOut: Partial<Record<LeftOutReason, number>> = {};
  const add = (reason: LeftOutReason, n: number) => {
    if (n) leftOut[reason] = (leftOut[reason] ?? 0) + n;
  };
  let recipients = 0;
  const tally = async (rows: SQL) => {
    const counted = await queryRows<{ reason: LeftOutReason | null; n: number }>(
      db(),
      sql`select reason, count(*)::int as n from (${rows}) r group by reason`,
    );
    for (const row of counted) {
      if (row.reason) add(row.reason, row.n);
      else recipients += row.n;
    }
  };
  if (audience.segmentId || audience.tags || audience.contactIds || audience.everyone) await tally(contactRows(rules, sources));
  if (numbers.valid.length) await tally(numberRows(rules, sources, numbers.valid));
  add("invalid_number", numbers.invalid.length);
  add("duplicate", numbers.duplicates);
  const total = recipients + Object.values(leftOut).reduce((a, b) => a + (b ?? 0), 0);
  return { total, recipients, leftOut };
}

/**
 * At the start: the audience frozen into campaign_recipients, in order (the book's contacts oldest
 * first, then the numbers as given), each number once. Answers the counts it stored.
 */
export async function freezeAudience(
  tx: Executor,
  campaignId: string,
  rules: Rules,
  audience: CampaignAudience,
  sources: SQL,
): Promise<AudienceCount> {
  const numbers = splitNumbers(audience.phones ?? []);
  let duplicates = numbers.duplicates;
  if (audience.segmentId || audience.tags || audience.contactIds || audience.everyone)
    await tx.execute(sql`
      insert into campaign_recipients (campaign_id, organization_id, contact_id, phone, state, reason)
      select ${campaignId}, ${rules.organizationId}, r.contact_id, r.phone,
             case when r.reason is null then 'pending' else 'left_out' end, r.reason
      from (${contactRows(rules, sources)}) r
      order by r.contact_id is null, r.phone`);
  if (numbers.valid.length) {
    const inserted = await countAffected(
      tx,
      sql`
      insert into campaign_recipients (campaign_id, organization_id, contact_id, phone, state, reason)
      select ${campaignId}, ${rules.organizationId}, r.contact_id, r.phone,
             case when r.reason is null then 'pending' else 'left_out' end, r.reason
      from (${numberRows(rules, sources, numbers.valid)}) r
      where r.reason is distinct from 'duplicate'
      order by r.ord
      on conflict (campaign_id, phone) do nothing`,
    );
    duplicates += numbers.valid.length - inserted;
  }
  if (numbers.invalid.length)
    await tx.execute(sql`
      insert into campaign_recipients (campaign_id, organization_id, phone, state, reason)
      select ${campaignId}, ${rules.organizationId}, p, 'left_out', 'invalid_number' from unnest(${sql.param(numbers.invalid)}::text[]) p
      on conflict (campaign_id, phone) do nothing`);
  const counted = await queryRows<{ reason: LeftOutReason | null; n: number }>(
    tx,
    sql`select reason, count(*)::int as n from campaign_recipients where campaign_id = ${campaignId} group by reason`,
  );
  const leftOut: Partial<Record<LeftOutReason, number>> = {};
  let recipients = 0;
  for (const row of counted) {
    if (row.reason) leftOut[row.reason] = row.n;
    else recipients = row.n;
  }
  if (duplicates) leftOut.duplicate = (leftOut.duplicate ?? 0) + duplicates;
  const total = recipients + Object.values(leftOut).reduce((a, b) => a + (b ?? 0), 0);
  return { total, recipients, leftOut };
}
