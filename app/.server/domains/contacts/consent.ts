import { sql } from "drizzle-orm";
import { refuseContact } from "./refusals";
import { m } from "~/paraglide/messages";
import { queryRows } from "../../infrastructure/db/query";
import type { Executor } from "../../infrastructure/db/client";

export type ConsentStatus = "opted_in" | "opted_out";
export type ConsentSource = "import" | "form" | "api" | "keyword" | "manual" | "meta";
export const CONSENT_SOURCES: readonly ConsentSource[] = ["import", "form", "api", "keyword", "manual", "meta"];
export const EVIDENCE_MAX = 2000;

export interface ConsentEvent {
  organizationId: string;
  contactId: string;
  status: ConsentStatus;
  source: ConsentSource;
  evidence: string;
  recordedBy?: string | null;
}

/**
 * Appends events to the consent ledger and moves each contact's state to its latest one, in the
 * caller's transaction so the two never disagree. Answers the contacts whose state changed.
 */
export async function recordConsent(executor: Executor, events: ConsentEvent[]): Promise<{ contactId: string; status: ConsentStatus }[]> {
  if (!events.length) return [];
  for (const e of events) {
    if (!CONSENT_SOURCES.includes(e.source))
      throw refuseContact(422, "invalid_consent", m.messaging_consent_source_invalid({ sources: CONSENT_SOURCES.join(", ") }));
    if (e.evidence.length > EVIDENCE_MAX)
      throw refuseContact(422, "invalid_consent", m.messaging_consent_evidence_too_long({ max: EVIDENCE_MAX }));
  }
  const col = <K extends keyof ConsentEvent>(key: K) => sql.param(events.map((e) => e[key] ?? null));
  const result = await queryRows<{ contact_id: string; status: ConsentStatus }>(
    executor,
    sql`
    with added as (
      insert into consent_events (organization_id, contact_id, status, source, evidence, recorded_by)
      select o, c, s, so, ev, r
      from unnest(${col("organizationId")}::uuid[], ${col("contactId")}::uuid[], ${col("status")}::text[], ${col("source")}::text[],
                  ${col("evidence")}::text[], ${col("recordedBy")}::uuid[]) with ordinality as t(o, c, s, so, ev, r, n)
      join contacts k on k.id = t.c and k.organization_id = t.o
      order by n
      returning id, contact_id, status
    ),
    latest as (select distinct on (contact_id) contact_id, status from added order by contact_id, id desc)
    update contacts k set opt_in = l.status, opt_in_changed_at = now(), updated_at = now()
    from latest l where k.id = l.contact_id and k.opt_in is distinct from l.status
    returning k.id as contact_id, k.opt_in as status`,
  );
  return result.map((r) => ({ contactId: r.contact_id, status: r.status }));
}

const OPT_OUT = new Map([
  ["STOP", "en"],
  ["STOP ALL", "en"],
  ["UNSUBSCRIBE", "en"],
  ["ACHA", "sw"],
  ["SITISHA", "sw"],
] as const);
const OPT_IN = new Map([
  ["START", "en"],
  ["ANZA", "sw"],
] as const);

/**
 * A customer's whole message as a consent keyword: STOP, STOP ALL, UNSUBSCRIBE, ACHA, SITISHA opt
 * out; START, ANZA opt back in. Case, spacing and punctuation do not matter ("Stop!", "s.t.o.p");
 * a sentence that merely contains the word is not a keyword.
 */
export function consentKeyword(text: string): { status: ConsentStatus; language: "en" | "sw" } | null {
  if (text.length > 60) return null;
  const words = text
    .normalize("NFKC")
    .toUpperCase()
    .replace(/[^\p{L}\p{N}\s]/gu, "")
    .replace(/\s+/g, " ")
    .trim();
  const out = OPT_OUT.get(words as never);
  if (out) return { status: "opted_out", language: out };
  const back = OPT_IN.get(words as never);
  if (back) return { status: "opted_in", language: back };
  return null;
}

/** The short answer to a keyword, in the person's language. */
export function consentReply(status: ConsentStatus, language: "en" | "sw", business: string): string {
  if (language === "sw")
    return status === "opted_out"
      ? `Umejiondoa. Hutapokea tena ujumbe wa matangazo kutoka ${business}. Jibu ANZA kujiunga tena.`
      : `Karibu tena! Utapokea ujumbe kutoka ${business}. Jibu ACHA kujiondoa.`;
  return status === "opted_out"
    ? `You have unsubscribed and will no longer get marketing messages from ${business}. Reply START to subscribe again.`
    : `Welcome back! You will get messages from ${business} again. Reply STOP to unsubscribe.`;
}
