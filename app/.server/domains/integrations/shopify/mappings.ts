import { sql } from "drizzle-orm";
import { db } from "../../../infrastructure/db/client";
import { queryRows } from "../../../infrastructure/db/query";
import { Refusal } from "../../../infrastructure/refusal";
import { SHOPIFY_EVENT_TYPES } from "../../../infrastructure/db/schema";
import { defaultFields, isShopifyField, type ShopifyEventType, type ShopifyField } from "./fields";
import { templateBlock, templateBody, templateVariables } from "./templates";
import { m } from "~/paraglide/messages";

import { DELAY_MINUTES, templateBlockWords, type TemplateBlock } from "~/lib/shopify";

export { DELAY_MINUTES };
export const RECENT_EVENTS = 20;

export interface MappingView {
  eventType: ShopifyEventType;
  enabled: boolean;
  templateId: string | null;
  variables: ShopifyField[];
  delayMinutes: number;
}

export interface TemplateChoice {
  id: string;
  name: string;
  language: string;
  category: string;
  body: string;
  variables: string[];
  /** What an event's message could not fill (a media header, a header or link variable): such a template is refused. */
  blocked: TemplateBlock | null;
}

export interface EventView {
  id: string;
  topic: string;
  eventType: ShopifyEventType | null;
  status: string;
  reason: string | null;
  reference: string | null;
  phone: string | null;
  receivedAt: string;
  /** An order's payment asked by M-Pesa (decision 142): its state and reason. */
  payment: { status: string; reason: string | null; amountKes: number | null } | null;
}

const refuse = (status: 400 | 404 | 422, code: string, message: string, field?: string) =>
  new Refusal({ domain: "integration", status, code, message, field });

export const isShopifyEventType = (value: unknown): value is ShopifyEventType => SHOPIFY_EVENT_TYPES.includes(value as ShopifyEventType);

/** The organisation's connected shop, or 404: the page is there only while Shopify is connected. */
export async function connectedShop(organizationId: string) {
  const [row] = await queryRows<{ shop: string; connected_at: Date | string }>(
    db(),
    sql`select external_account_id as shop, connected_at from integration_connections
        where organization_id = ${organizationId} and provider = 'shopify' and status = 'connected'`,
  );
  if (!row) throw refuse(404, "not_connected", m.integrations_not_connected());
  return row.shop;
}

/** The organisation's approved templates, with each one's body variables. */
export async function approvedTemplates(organizationId: string): Promise<TemplateChoice[]> {
  const rows = await queryRows<{ id: string; name: string; language: string; category: string; components: unknown }>(
    db(),
    sql`select id, name, language, category, components from message_templates
        where organization_id = ${organizationId} and status = 'approved' order by name, language limit 500`,
  );
  return rows.map((r) => ({
    id: r.id,
    name: r.name,
    language: r.language,
    category: r.category,
    body: templateBody(r.components),
    variables: templateVariables(r.components),
    blocked: templateBlock(r.components),
  }));
}

/** Each event type's mapping (one not saved yet: off, no template). */
export async function listMappings(organizationId: string): Promise<MappingView[]> {
  const rows = await queryRows<{
    event_type: ShopifyEventType;
    enabled: boolean;
    template_id: string | null;
    variables: string[];
    delay_minutes: number;
  }>(
    db(),
    sql`select event_type, enabled, template_id, variables, delay_minutes from shopify_mappings where organization_id = ${organizationId}`,
  );
  return SHOPIFY_EVENT_TYPES.map((eventType) => {
    const row = rows.find((r) => r.event_type === eventType);
    return {
      eventType,
      enabled: row?.enabled ?? false,
      templateId: row?.template_id ?? null,
      variables: (row?.variables ?? []).filter(isShopifyField),
      delayMinutes: row?.delay_minutes ?? DELAY_MINUTES.default,
    };
  });
}

/** The latest events received for the organisation, newest first. */
export async function recentEvents(organizationId: string, limit = RECENT_EVENTS): Promise<EventView[]> {
  const rows = await queryRows<{
    id: string;
    topic: string;
    event_type: ShopifyEventType | null;
    status: string;
    reason: string | null;
    reference: string | null;
    phone: string | null;
    created_at: Date | string;
    pay_status: string | null;
    pay_reason: string | null;
    pay_amount: number | null;
  }>(
    db(),
    sql`select e.id, e.topic, e.event_type, e.status, e.reason, e.reference, e.phone, e.created_at,
               p.status as pay_status, p.reason as pay_reason, p.amount_kes as pay_amount
        from shopify_events e
        left join shopify_order_payments p on p.event_row_id = e.id and p.organization_id = e.organization_id
        where e.organization_id = ${organizationId} order by e.created_at desc, e.id desc limit ${limit}`,
  );
  return rows.map((r) => ({
    id: r.id,
    topic: r.topic,
    eventType: r.event_type,
    status: r.status,
    reason: r.reason,
    reference: r.reference,
    phone: r.phone,
    receivedAt: new Date(r.created_at).toISOString(),
    payment: r.pay_status ? { status: r.pay_status, reason: r.pay_reason, amountKes: r.pay_amount } : null,
  }));
}

export interface MappingInput {
  eventType: string;
  enabled: boolean;
  templateId: string;
  variables: string[];
  delayMinutes: string;
}

/**
 * Saves one event type's mapping: the template must be one of the organisation's approved ones (another
 * organisation's or an unknown id: 404); each variable a known field, missing ones filled with the
 * event's sensible defaults; the delay 5 minutes to 7 days. Turning it on needs a template.
 */
export async function saveMapping(organizationId: string, input: MappingInput): Promise<MappingView> {
  await connectedShop(organizationId);
  if (!isShopifyEventType(input.eventType)) throw refuse(400, "unknown_event", m.shopify_event_unknown());
  const eventType = input.eventType;
  let template: TemplateChoice | null = null;
  if (input.templateId) {
    if (!/^[0-9a-f-]{36}$/i.test(input.templateId)) throw refuse(404, "template_not_found", m.shopify_template_not_found(), "templateId");
    template = (await approvedTemplates(organizationId)).find((t) => t.id === input.templateId) ?? null;
    if (!template) throw refuse(404, "template_not_found", m.shopify_template_not_found(), "templateId");
    if (template.blocked) throw refuse(422, "template_cannot_be_filled", templateBlockWords(template.blocked), "templateId");
  }
  if (input.enabled && !template) throw refuse(422, "template_required", m.shopify_template_required(), "templateId");
  if (input.variables.some((v) => v !== "" && !isShopifyField(v))) throw refuse(400, "unknown_field", m.shopify_field_unknown());
  let delayMinutes: number = DELAY_MINUTES.default;
  if (eventType === "checkout_abandoned" || input.delayMinutes) {
    const n = Number(input.delayMinutes || DELAY_MINUTES.default);
    if (!Number.isInteger(n) || n < DELAY_MINUTES.min || n > DELAY_MINUTES.max)
      throw refuse(422, "invalid_delay", m.shopify_delay_invalid({ min: DELAY_MINUTES.min, max: DELAY_MINUTES.max }), "delayMinutes");
    delayMinutes = n;
  }
  const count = template?.variables.length ?? 0;
  const defaults = defaultFields(eventType, count);
  const variables = Array.from({ length: count }, (_, i) => {
    const given = input.variables[i];
    return isShopifyField(given) ? given : defaults[i]!;
  });
  await db().execute(sql`
    insert into shopify_mappings (organization_id, event_type, enabled, template_id, variables, delay_minutes)
    values (${organizationId}, ${eventType}, ${input.enabled}, ${template?.id ?? null}, ${JSON.stringify(variables)}::jsonb, ${delayMinutes})
    on conflict (organization_id, event_type) do update set enabled = excluded.enabled, template_id = excluded.template_id,
      variables = excluded.variables, delay_minutes = excluded.delay_minutes, updated_at = now()`);
  return { eventType, enabled: input.enabled, templateId: template?.id ?? null, variables, delayMinutes };
}
