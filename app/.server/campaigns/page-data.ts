import { rawQuery } from "../db/client";
import { attributeDefinitions } from "../contacts/attributes";
import { listSegments } from "../contacts/segments";
import { contactTagChoices } from "../contacts/tags";
import { BUILT_IN_FIELDS } from "./variables";

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
  footer: string | null;
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
      footer: part("FOOTER") ? String(part("FOOTER")?.text ?? "") : null,
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

/** Everything the New Campaign form offers: numbers, templates, the fields a placeholder can take, segments and tags. */
export async function campaignFormChoices(organizationId: string) {
  const [senders, templates, definitions, segments, tags] = await Promise.all([
    senderChoices(organizationId),
    approvedTemplateChoices(organizationId),
    attributeDefinitions(organizationId),
    listSegments(organizationId, { counts: false }),
    contactTagChoices(organizationId),
  ]);
  return {
    senders,
    templates,
    fields: [
      ...Object.entries(BUILT_IN_FIELDS).map(([key, label]) => ({ key, label })),
      ...[...definitions.values()].map((d) => ({ key: d.key, label: d.label })),
    ],
    segments: segments.map((s) => ({ id: s.id, name: s.name })),
    tags,
  };
}
