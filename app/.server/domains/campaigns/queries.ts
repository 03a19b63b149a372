import { WALLET_EMPTY_PAUSE, WALLET_EMPTY_PAUSE_BEFORE } from "../billing";
import { rawQuery } from "../../infrastructure/db/client";
import { decodeKeysetCursor, encodeKeysetCursor, isUuid } from "../../infrastructure/db/keyset";
import { csvRow } from "../activity";
import { log } from "../../infrastructure/log";
import { inLocale } from "../../infrastructure/http/display-zone";
import { getLocale } from "~/paraglide/runtime";
import type {
  CampaignAudience,
  CampaignCounts,
  CampaignParameters,
  CampaignSmsFallback,
  LeftOutReason,
} from "../../infrastructure/db/schema/campaigns";
import { campaignFigures, readerMaxAgeMs, type Figures } from "./progress";
import { campaignNotFound } from "./refusals";
import { storedWords } from "../notifications";
import { failureInWords, LEFT_OUT_WORDS } from "./failure-words";
import type { CampaignStatus, RecipientResult } from "~/lib/campaign-live";
import { formatNumber } from "~/lib/dates";
import { byCount } from "~/lib/intl";
import { m } from "~/paraglide/messages";

export { CAMPAIGN_STATUSES, RECIPIENT_RESULTS, type CampaignStatus, type RecipientResult } from "~/lib/campaign-live";
/** Broadcast History: what has ended. */
export const ENDED_STATUSES: CampaignStatus[] = ["completed", "cancelled", "failed"];

interface CampaignRow {
  id: string;
  organization_id: string;
  kind: "campaign" | "broadcast";
  name: string;
  status: CampaignStatus;
  phone_number_id: string;
  phone_digits: string | null;
  template_name: string;
  template_language: string;
  template_category: string;
  parameters: CampaignParameters;
  sms_fallback: CampaignSmsFallback | null;
  audience: CampaignAudience;
  segment_name: string | null;
  scheduled_for: Date | string | null;
  audience_size: number | null;
  left_out: Partial<Record<LeftOutReason, number>> | null;
  estimated_cost_cents: number | string | null;
  counts: CampaignCounts | null;
  counted_at: Date | string | null;
  paused_reason: string | null;
  paused_by_name: string | null;
  notice: string | null;
  created_by: string | null;
  created_by_name: string | null;
  approved_by_name: string | null;
  approved_at: Date | string | null;
  declined_by_name: string | null;
  declined_at: Date | string | null;
  decline_reason: string | null;
  updated_at: Date | string;
  created_at: Date | string;
  started_at: Date | string | null;
  finished_at: Date | string | null;
}

export interface CampaignView {
  id: string;
  kind: "campaign" | "broadcast";
  name: string;
  status: CampaignStatus;
  /** The sending number (E.164) and Meta's id for it. */
  from: string | null;
  phoneNumberId: string;
  template: { name: string; language: string; category: string };
  parameters: CampaignParameters;
  /** Its SMS for anyone WhatsApp cannot reach (decision 152): its text, the template's or its own, and the minutes. */
  smsFallback: {
    text: string;
    fromTemplate: boolean;
    afterMinutes: number;
    /** How it went, where the reader asks for it (the API's answers about one campaign). */
    counts?: { sent: number; pending: number; cancelled: number; skipped: number };
  } | null;
  audience: CampaignAudience;
  /** The audience in words: "Segment Nairobi VIPs", "tags vip, nakuru", "120 numbers"... */
  audienceLabel: string;
  /** Everyone the audience named, once started; and who was left out, by reason. */
  audienceSize: number | null;
  leftOut: Partial<Record<LeftOutReason, number>>;
  estimatedCostKes: number | null;
  counts: CampaignCounts;
  /** Why it is paused (Jumbe's words), or who paused it. */
  pausedReason: string | null;
  pausedBy: string | null;
  notice: string | null;
  /** Who made it (null through the API) and, for broadcast approval, its request and decision. */
  createdBy: { id: string; name: string } | null;
  approval: Approval | null;
  scheduledFor: string | null;
  createdAt: string;
  startedAt: string | null;
  finishedAt: string | null;
}

/** Broadcast approval (decision 033): asked for when it began waiting; approved or declined by whom, when, why. */
export interface Approval {
  /** While it waits: when it was put to approval. */
  requestedAt: string | null;
  approvedBy: string | null;
  approvedAt: string | null;
  declinedBy: string | null;
  declinedAt: string | null;
  declineReason: string | null;
}

const iso = (value: Date | string | null) => (value === null ? null : new Date(value).toISOString());

export function audienceLabel(audience: CampaignAudience, segmentName: string | null) {
  const parts: string[] = [];
  if (audience.segmentId)
    parts.push(segmentName ? m.messaging_audience_label_segment({ name: segmentName }) : m.messaging_audience_label_deleted_segment());
  if (audience.tags?.length) {
    const tags = audience.tags.join(", ");
    parts.push(audience.tags.length === 1 ? m.messaging_audience_label_tag({ tags }) : m.messaging_audience_label_tags({ tags }));
  }
  if (audience.contactIds?.length) {
    const n = audience.contactIds.length;
    const count = String(n);
    parts.push(
      byCount(
        n,
        () => m.messaging_audience_label_contacts_one({ count }),
        () => m.messaging_audience_label_contacts_other({ count }),
      ),
    );
  }
  if (audience.phones?.length) {
    const n = audience.phones.length;
    const count = formatNumber(n);
    parts.push(
      byCount(
        n,
        () => m.messaging_audience_label_numbers_one({ count }),
        () => m.messaging_audience_label_numbers_other({ count }),
      ),
    );
  }
  if (audience.everyone) parts.push(m.messaging_audience_label_everyone());
  const text = parts.join(" + ");
  return text.charAt(0).toUpperCase() + text.slice(1);
}

const SELECT = `
  select c.*, s.name as segment_name, p.phone_digits,
         nullif(trim(coalesce(u.first_name, '') || ' ' || coalesce(u.last_name, '')), '') as paused_by_name,
         nullif(trim(coalesce(cu.first_name, '') || ' ' || coalesce(cu.last_name, '')), '') as created_by_name,
         nullif(trim(coalesce(au.first_name, '') || ' ' || coalesce(au.last_name, '')), '') as approved_by_name,
         nullif(trim(coalesce(du.first_name, '') || ' ' || coalesce(du.last_name, '')), '') as declined_by_name
  from campaigns c
  left join segments s on s.id = c.segment_id
  left join whatsapp_phone_numbers p on p.phone_number_id = c.phone_number_id and p.organization_id = c.organization_id
  left join users u on u.id = c.paused_by
  left join users cu on cu.id = c.created_by
  left join users au on au.id = c.approved_by
  left join users du on du.id = c.declined_by`;

function viewOf(row: CampaignRow, figures: Figures): CampaignView {
  return {
    id: row.id,
    kind: row.kind,
    name: row.name,
    status: row.status,
    from: row.phone_digits ? `+${row.phone_digits}` : null,
    phoneNumberId: row.phone_number_id,
    template: { name: row.template_name, language: row.template_language, category: row.template_category },
    parameters: row.parameters,
    smsFallback: row.sms_fallback
      ? { text: row.sms_fallback.text, fromTemplate: row.sms_fallback.mode === "message", afterMinutes: row.sms_fallback.afterMinutes }
      : null,
    audience: row.audience,
    audienceLabel: audienceLabel(row.audience, row.segment_name),
    audienceSize: row.audience_size,
    leftOut: figures.leftOut,
    estimatedCostKes: row.estimated_cost_cents === null ? null : Number(row.estimated_cost_cents) / 100,
    counts: figures.counts,
    // Stored with its own "Paused: " before the page's: said once. Stored in English (Jumbe's jobs write
    // them), said in the reader's language.
    pausedReason: storedWords(row.paused_reason === WALLET_EMPTY_PAUSE_BEFORE ? WALLET_EMPTY_PAUSE : row.paused_reason),
    pausedBy: row.paused_by_name,
    notice: storedWords(row.notice),
    createdBy: row.created_by ? { id: row.created_by, name: row.created_by_name ?? m.messaging_someone_member() } : null,
    approval:
      row.status === "awaiting_approval" || row.approved_at || row.declined_at
        ? {
            requestedAt: row.status === "awaiting_approval" ? iso(row.updated_at) : null,
            approvedBy: row.approved_at ? (row.approved_by_name ?? m.messaging_someone_former_member()) : null,
            approvedAt: iso(row.approved_at),
            declinedBy: row.declined_at ? (row.declined_by_name ?? m.messaging_someone_former_member()) : null,
            declinedAt: iso(row.declined_at),
            declineReason: row.decline_reason,
          }
        : null,
    scheduledFor: iso(row.scheduled_for),
    createdAt: iso(row.created_at)!,
    startedAt: iso(row.started_at),
    finishedAt: iso(row.finished_at),
  };
}

/**
 * One campaign of the tenant, its figures at most a few seconds old (the feeder keeps a sending
 * one's to its interval: a second, up to 5 s for the largest); another tenant's id is not found.
 */
export async function getCampaign(organizationId: string, id: string): Promise<CampaignView> {
  if (!isUuid(id)) throw campaignNotFound();
  const [row] = await rawQuery<CampaignRow>(`${SELECT} where c.organization_id = $1 and c.id = $2`, [organizationId, id]);
  if (!row) throw campaignNotFound();
  const figures = await campaignFigures([{ row, maxAgeMs: readerMaxAgeMs(row) }]);
  return viewOf(row, figures.get(row.id)!);
}

export interface CampaignListFilter {
  search?: string;
  status?: CampaignStatus;
  /** Broadcast History: only ended ones. */
  ended?: boolean;
  kind?: "campaign" | "broadcast";
}

/**
 * The tenant's campaigns, newest first, by keyset (created_at, id) in the index's order, each with
 * the figures its own page shows (readerMaxAgeMs).
 */
export async function listCampaigns(
  organizationId: string,
  filter: CampaignListFilter,
  page: { cursor?: string | null; before?: string | null; limit?: number } = {},
) {
  const limit = Math.min(Math.max(page.limit ?? 25, 1), 100);
  const params: unknown[] = [organizationId];
  const where = ["c.organization_id = $1"];
  const search = filter.search?.trim().slice(0, 100);
  if (search) {
    params.push(`%${search.replace(/[\\%_]/g, (ch) => `\\${ch}`)}%`);
    where.push(`(c.name ilike $${params.length} or c.template_name ilike $${params.length})`);
  }
  if (filter.status) {
    params.push(filter.status);
    where.push(`c.status = $${params.length}`);
  }
  if (filter.ended) where.push(`c.status in ('completed', 'cancelled', 'failed')`);
  if (filter.kind) {
    params.push(filter.kind);
    where.push(`c.kind = $${params.length}`);
  }
  // `before` a cursor reads the page newer than it (the index backwards), else `cursor` the one older.
  const before = decodeKeysetCursor(page.before);
  const after = before ? undefined : decodeKeysetCursor(page.cursor);
  const bound = before ?? after;
  if (bound) {
    params.push(bound.at, bound.id);
    where.push(`(c.created_at, c.id) ${before ? ">" : "<"} ($${params.length - 1}::timestamptz, $${params.length}::uuid)`);
  }
  params.push(limit + 1);
  const order = before ? "c.created_at asc nulls first, c.id asc nulls first" : "c.created_at desc nulls last, c.id desc nulls last";
  const rows = await rawQuery<CampaignRow & { cursor_at: string }>(
    `${SELECT.replace("select c.*", "select c.*, c.created_at::text as cursor_at")}
     where ${where.join(" and ")}
     order by ${order} limit $${params.length}`,
    params,
  );
  const more = rows.length > limit;
  const shown = rows.slice(0, limit);
  if (before) shown.reverse();
  // The same freshness as the campaign's own page (readerMaxAgeMs): the list and the page never disagree.
  const figures = await campaignFigures(shown.map((row) => ({ row, maxAgeMs: readerMaxAgeMs(row) })));
  const views = shown.map((row) => viewOf(row, figures.get(row.id)!));
  const cursor = (row: (typeof shown)[number] | undefined) => (row ? encodeKeysetCursor(row.cursor_at, row.id) : null);
  const older = (before ? true : more) && shown.length ? cursor(shown.at(-1)) : null;
  return { campaigns: views, next: older, older, newer: (before ? more : !!after) ? cursor(shown[0]) : null };
}

/** The most campaigns one list's live stream follows (a page of the list holds 25). */
export const LIVE_LIST_MOST = 100;

/** What a list's live stream compares from one second to the next: each campaign's status and figures. */
export interface ListedFigures {
  id: string;
  status: CampaignStatus;
  counts: CampaignCounts;
  finishedAt: string | null;
}

/**
 * The status and figures of these campaigns of the tenant (a list's page: the Campaigns tab's live
 * stream), with the freshness every reader asks (readerMaxAgeMs, decision 049), in the order given.
 * Another tenant's ids, or none at all, are left out: nothing says they exist.
 */
export async function listedFigures(organizationId: string, ids: string[]): Promise<ListedFigures[]> {
  const wanted = [...new Set(ids.filter(isUuid))].slice(0, LIVE_LIST_MOST);
  if (!wanted.length) return [];
  const rows = await rawQuery<Pick<CampaignRow, "id" | "status" | "counts" | "counted_at" | "started_at" | "finished_at" | "left_out">>(
    `select id, status, counts, counted_at, started_at, finished_at, left_out from campaigns
      where organization_id = $1 and id = any($2::uuid[])`,
    [organizationId, wanted],
  );
  const figures = await campaignFigures(rows.map((row) => ({ row, maxAgeMs: readerMaxAgeMs(row) })));
  const byId = new Map(rows.map((row) => [row.id, row]));
  return wanted.flatMap((id) => {
    const row = byId.get(id);
    return row ? [{ id, status: row.status, counts: figures.get(id)!.counts, finishedAt: iso(row.finished_at) }] : [];
  });
}

export interface RecipientView {
  id: number;
  phone: string | null;
  name: string | null;
  /** What happened: waiting, sent, delivered, read, failed or left_out (replied is a flag beside it). */
  result: Exclude<RecipientResult, "replied">;
  replied: boolean;
  /** Why it failed or was left out, in words. */
  reason: string | null;
  sentAt: string | null;
  deliveredAt: string | null;
  readAt: string | null;
  repliedAt: string | null;
}

interface RecipientRow {
  id: number;
  phone: string | null;
  name: string | null;
  state: string;
  reason: string | null;
  status: string | null;
  accepted_at: Date | string | null;
  delivered_at: Date | string | null;
  read_at: Date | string | null;
  replied_at: Date | string | null;
  error_code: number | null;
  error_title: string | null;
}

function recipientView(row: RecipientRow): RecipientView {
  const result: RecipientView["result"] =
    row.state === "left_out"
      ? "left_out"
      : row.status === "failed"
        ? "failed"
        : row.read_at
          ? "read"
          : row.delivered_at
            ? "delivered"
            : row.accepted_at
              ? "sent"
              : "waiting";
  return {
    id: Number(row.id),
    phone: row.phone,
    name: row.name,
    result,
    replied: !!row.replied_at,
    reason:
      result === "left_out"
        ? (LEFT_OUT_WORDS[row.reason ?? ""] ?? row.reason)
        : result === "failed"
          ? // A campaign's messages are templates.
            failureInWords(row.error_code, row.error_title, { template: true })
          : null,
    sentAt: iso(row.accepted_at),
    deliveredAt: iso(row.delivered_at),
    readAt: iso(row.read_at),
    repliedAt: iso(row.replied_at),
  };
}

const RESULT_CONDITION: Record<RecipientResult, string> = {
  waiting: `r.state <> 'left_out' and (m.id is null or (m.accepted_at is null and m.status <> 'failed'))`,
  sent: `m.accepted_at is not null and m.status <> 'failed'`,
  delivered: `(m.delivered_at is not null or m.read_at is not null)`,
  read: `m.read_at is not null`,
  replied: `r.replied_at is not null`,
  failed: `m.status = 'failed'`,
  left_out: `r.state = 'left_out'`,
};

function recipientsQuery(result: RecipientResult | undefined, afterId: number | undefined, limit: number | null) {
  const where = ["r.campaign_id = $1"];
  if (result) where.push(RESULT_CONDITION[result]);
  if (afterId !== undefined) where.push(`r.id > ${Number(afterId)}`);
  return `
    select r.id, r.phone, ct.name, r.state, r.reason, r.replied_at,
           m.status, m.accepted_at, m.delivered_at, m.read_at, m.error_code, m.error_title
    from campaign_recipients r
    left join messages m on m.id = r.message_id
    left join contacts ct on ct.id = r.contact_id
    where ${where.join(" and ")}
    order by r.id${limit ? ` limit ${limit}` : ""}`;
}

/** Recipients a page of a campaign shows: a screenful, and a small page on a slow phone connection. */
export const RECIPIENTS_PER_PAGE = 25;

/** One page of a campaign's recipients in audience order, optionally one result only (a foreign campaign is not found). */
export async function recipientsPage(
  organizationId: string,
  campaignId: string,
  options: { result?: RecipientResult; after?: number; limit?: number } = {},
) {
  await assertOwn(organizationId, campaignId);
  const limit = Math.min(Math.max(options.limit ?? RECIPIENTS_PER_PAGE, 1), 200);
  const rows = await rawQuery<RecipientRow>(recipientsQuery(options.result, options.after, limit + 1), [campaignId]);
  const shown = rows.slice(0, limit);
  return { recipients: shown.map(recipientView), next: rows.length > limit ? Number(shown.at(-1)!.id) : null };
}

async function assertOwn(organizationId: string, campaignId: string) {
  if (!isUuid(campaignId)) throw campaignNotFound();
  const [own] = await rawQuery(`select 1 from campaigns where organization_id = $1 and id = $2`, [organizationId, campaignId]);
  if (!own) throw campaignNotFound();
}

const CSV_HEADER = ["Phone", "Name", "Result", "Replied", "Reason", "Sent at", "Delivered at", "Read at", "Replied at"];
const CSV_CHUNK = 1000;

/**
 * A campaign's per-recipient results as a CSV stream (formula-safe cells, a UTF-8 byte order mark),
 * read in chunks as the client takes them: the memory of one chunk for any audience.
 */
export async function openRecipientsCsv(organizationId: string, campaignId: string, result?: RecipientResult) {
  await assertOwn(organizationId, campaignId);
  const encoder = new TextEncoder();
  let after: number | undefined;
  let started = false;
  // The reasons in the asker's language: the stream is read after the request's own work has returned.
  const locale = getLocale();
  return new ReadableStream<Uint8Array>({
    pull: (controller) => inLocale(locale, () => pullRows(controller)),
  });

  async function pullRows(controller: ReadableStreamDefaultController<Uint8Array>) {
    if (!started) {
      started = true;
      controller.enqueue(encoder.encode(`\uFEFF${csvRow(CSV_HEADER)}`));
      return;
    }
    try {
      const rows = await rawQuery<RecipientRow>(recipientsQuery(result, after, CSV_CHUNK), [campaignId]);
      if (!rows.length) return controller.close();
      after = Number(rows.at(-1)!.id);
      controller.enqueue(
        encoder.encode(
          rows
            .map(recipientView)
            .map((r) =>
              csvRow([r.phone, r.name, r.result, r.replied ? "yes" : "no", r.reason, r.sentAt, r.deliveredAt, r.readAt, r.repliedAt]),
            )
            .join(""),
        ),
      );
    } catch (error) {
      log().error({ err: error }, "campaign results export failed mid-stream");
      controller.error(error);
    }
  }
}
