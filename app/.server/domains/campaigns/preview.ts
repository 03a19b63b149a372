import { sql, type SQL } from "drizzle-orm";
import { db } from "../../infrastructure/db/client";
import { queryRows } from "../../infrastructure/db/query";
import { contactRows, numberRows, splitNumbers } from "./audience";
import { rulesOf, type CheckedCampaign } from "./lifecycle";
import { parameterValue, type RecipientFields } from "./variables";
import { buttonValues, headerMediaLabel } from "./template-values";

export interface PreviewMessage {
  to: string;
  name: string | null;
  header: string | null;
  body: string;
  footer: string | null;
  /** The buttons that take a value: their label and what they open or copy for this person. */
  buttons?: { text: string; value: string }[];
  /** The SMS this person would get if WhatsApp cannot reach them (a campaign with the SMS fallback). */
  sms?: string;
}

/** A template's text with its placeholders ({{1}} or {{name}}) filled in order of the values. */
export function fillPlaceholders(text: string, values: string[], named: string[]) {
  return text.replace(/\{\{\s*([^{}]*?)\s*\}\}/g, (whole, key: string) => {
    const index = /^\d+$/.test(key) ? Number(key) - 1 : named.indexOf(key);
    return index >= 0 && values[index] !== undefined ? values[index]! : whole;
  });
}

/**
 * The first few real messages the campaign would send, as the people will read them: the audience's
 * first recipients (those not left out), their values in the template's text.
 */
export async function previewMessages(organizationId: string, checked: CheckedCampaign, limit = 3): Promise<PreviewMessage[]> {
  const rules = rulesOf(organizationId, checked);
  const picked: { phone: string; fields: RecipientFields }[] = [];
  // In a stable order (the contacts' numbers; numbers given, as given): the same preview on every read.
  const take = async (rows: ReturnType<typeof contactRows>, order: SQL) => {
    const found = await queryRows<{ phone: string; name: string | null; attributes: Record<string, unknown> | null }>(
      db(),
      sql`
        select r.phone, c.name, c.attributes from (${rows}) r left join contacts c on c.id = r.contact_id
        where r.reason is null order by ${order} limit ${limit - picked.length}`,
    );
    for (const row of found) picked.push({ phone: row.phone, fields: { name: row.name, phone: row.phone, attributes: row.attributes } });
  };
  const audience = checked.audience;
  if (audience.segmentId || audience.tags || audience.contactIds || audience.everyone)
    await take(contactRows(rules, checked.sources), sql`r.phone`);
  const numbers = splitNumbers(audience.phones ?? []).valid;
  if (picked.length < limit && numbers.length) await take(numberRows(rules, checked.sources, numbers.slice(0, 1000)), sql`r.ord`);
  return picked.map(({ phone, fields }) => previewOf(checked, phone, fields));
}

function previewOf(checked: CheckedCampaign, phone: string, fields: RecipientFields): PreviewMessage {
  const texts = checked.template.texts;
  const values = checked.parameters.body.map((source) => parameterValue(source, fields));
  const header = checked.parameters.header ? parameterValue(checked.parameters.header, fields) : undefined;
  const buttons = previewButtons(checked, fields);
  return {
    to: phone,
    name: fields.name,
    header:
      texts.header === null
        ? headerMediaLabel(checked.template.headerFormat, checked.template.headerMedia)
        : fillPlaceholders(texts.header, header === undefined ? [] : [header], []),
    body: fillPlaceholders(texts.body, values, checked.template.body.named),
    footer: texts.footer,
    ...(buttons.length ? { buttons } : {}),
    ...(checked.smsFallback ? { sms: fillPlaceholders(checked.smsFallback.text, values, checked.smsFallback.named) } : {}),
  };
}

/** Each value button as this person gets it: the link with its suffix, or the code. */
function previewButtons(checked: CheckedCampaign, fields: RecipientFields) {
  const values = buttonValues(checked.parameters.buttons, fields);
  return checked.template.buttons.map((button) => {
    const value = values.find((v) => v.index === button.index)?.value ?? "";
    return { text: button.text, value: button.url ? fillPlaceholders(button.url, [value], []) : value };
  });
}
