import { rawQuery } from "../../infrastructure/db/client";
import { attributeDefinitions, listSegments, contactTagChoices } from "../contacts";
import { BUILT_IN_FIELDS } from "./variables";
import { valueButtons, type ValueButton, mediaKindOf } from "../messaging";
import { hasSmsConnection } from "./sms-fallback";
import { productButtonOf } from "~/lib/templates";
import { m } from "~/paraglide/messages";

/** One approved template as the New Campaign form offers it: what its placeholders need. */
export interface TemplateChoice {
  /** `name|language`: the form's value. */
  key: string;
  name: string;
  language: string;
  category: string;
  body: string;
  /** How many values the body takes, and their names when the placeholders are named. */
  bodyCount: number;
  named: string[];
  header: string | null;
  headerTakesText: boolean;
  /** IMAGE, VIDEO or DOCUMENT: a media header, whose file the campaign gives; TEXT; null without a header. */
  headerFormat: string | null;
  /** The buttons that take a value per person: a URL ending in {{1}}, a copy code. */
  buttons: ValueButton[];
  footer: string | null;
  /** A catalog or multi-product template (decision 146): the campaign chooses its products. */
  productButton: "CATALOG" | "MPM" | null;
}

/** An uploaded file a media header can send: the tenant's own uploads, newest first. */
export interface MediaChoice {
  id: string;
  name: string;
  kind: string | null;
}

const PLACEHOLDER = /\{\{\s*([^{}]*?)\s*\}\}/g;
const names = (text: unknown) => (typeof text === "string" ? [...text.matchAll(PLACEHOLDER)].map((m) => m[1]!) : []);
/** The same counting as the sending engine's (compose.ts): positional by the highest number, named by distinct names. */
function needed(found: string[]) {
  if (!found.length) return { count: 0, named: [] as string[] };
  if (found.every((n) => /^\d+$/.test(n))) return { count: Math.max(...found.map(Number)), named: [] as string[] };
  const named = [...new Set(found)];
  return { count: named.length, named };
}

/** The tenant's approved templates (of its connected WABAs), by name then language. */
export async function approvedTemplateChoices(organizationId: string): Promise<TemplateChoice[]> {
  const rows = await rawQuery<{ name: string; language: string; category: string; components: Record<string, unknown>[] }>(
    `select distinct on (t.name, t.language) t.name, t.language, t.category, t.components
     from message_templates t
     where t.organization_id = $1 and t.status = 'approved' and t.deleting_at is null
     order by t.name, t.language, t.updated_at desc nulls last`,
    [organizationId],
  );
  return rows.map((row) => {
    const part = (type: string) => (row.components ?? []).find((c) => String(c.type).toUpperCase() === type);
    const header = part("HEADER");
    const headerText = String(header?.format ?? "").toUpperCase() === "TEXT" ? String(header?.text ?? "") : null;
    const body = String(part("BODY")?.text ?? "");
    const bodyNeeds = needed(names(body));
    return {
      key: `${row.name}|${row.language}`,
      name: row.name,
      language: row.language,
      category: row.category.toLowerCase(),
      body,
      bodyCount: bodyNeeds.count,
      named: bodyNeeds.named,
      header: headerText,
      headerTakesText: headerText !== null && needed(names(headerText)).count > 0,
      headerFormat: header ? String(header.format ?? "").toUpperCase() || null : null,
      buttons: valueButtons(row.components ?? []),
      footer: part("FOOTER") ? String(part("FOOTER")?.text ?? "") : null,
      productButton: productButtonOf(row.components ?? []),
    };
  });
}

/** The tenant's connected numbers a campaign can send from (the first is the default). */
export async function senderChoices(organizationId: string) {
  return rawQuery<{ phoneNumberId: string; number: string; name: string | null }>(
    `select p.phone_number_id as "phoneNumberId", '+' || p.phone_digits as number, p.verified_name as name
     from whatsapp_phone_numbers p join whatsapp_accounts a on a.id = p.account_id
     where p.organization_id = $1 and p.disconnected_at is null and a.status = 'connected'
     order by p.created_at, p.phone_number_id`,
    [organizationId],
  );
}

/** The tenant's latest uploads (POST /api/v1/media), for a media header. */
export async function mediaChoices(organizationId: string, limit = 50): Promise<MediaChoice[]> {
  const rows = await rawQuery<{ id: string; file_name: string | null; mime_type: string; created_at: Date | string }>(
    `select id, file_name, mime_type, created_at from media_files
     where organization_id = $1 and direction = 'outbound' order by created_at desc, id limit $2`,
    [organizationId, limit],
  );
  return rows.map((r) => ({
    id: r.id,
    name: r.file_name ?? m.messaging_media_unnamed_file({ type: r.mime_type }),
    kind: mediaKindOf(r.mime_type) ?? null,
  }));
}

/** Everything the New Campaign form offers: numbers, templates, the fields a placeholder can take, segments, tags and uploads. */
export async function campaignFormChoices(organizationId: string) {
  const [senders, templates, definitions, segments, tags, media, smsConnected] = await Promise.all([
    senderChoices(organizationId),
    approvedTemplateChoices(organizationId),
    attributeDefinitions(organizationId),
    listSegments(organizationId, { counts: false }),
    contactTagChoices(organizationId),
    mediaChoices(organizationId),
    hasSmsConnection(organizationId),
  ]);
  return {
    senders,
    // The SMS fallback is offered only with Africa's Talking connected (decision 152).
    smsConnected,
    templates,
    fields: [
      ...Object.entries(BUILT_IN_FIELDS).map(([key, label]) => ({ key, label })),
      ...[...definitions.values()].map((d) => ({ key: d.key, label: d.label })),
    ],
    segments: segments.map((s) => ({ id: s.id, name: s.name })),
    tags,
    media,
  };
}
