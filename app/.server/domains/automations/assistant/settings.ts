import { sql } from "drizzle-orm";
import { z } from "zod";
import { db } from "../../../infrastructure/db/client";
import { queryRow, queryRows } from "../../../infrastructure/db/query";
import { Refusal } from "../../../infrastructure/refusal";
import { decryptSecret, encryptSecret } from "../../../infrastructure/security/crypto";
import { recordActivity } from "../../activity";
import { touchAutomations, type RuleActor } from "../rules";
import {
  API_KEY_MAX,
  ASSISTANT_MESSAGES,
  HANDOVER_TEXT_MAX,
  INSTRUCTIONS_MAX,
  MAX_TURNS_DEFAULT,
  MAX_TURNS_MAX,
  MAX_TURNS_MIN,
  MODEL_MAX,
  MONEY_MAX_CENTS,
} from "~/lib/schemas/assistant";
import { checkAssistantEndpoint, endpointOrigin } from "./endpoint";

/**
 * The assistant's settings (issue 44): one row an organisation, written when first saved. The key is
 * sealed with ENCRYPTION_KEY and never read back out of this module except to call the endpoint:
 * pages and the API get whether one is saved and its last four characters.
 *
 * The key belongs to the endpoint's origin (scheme, host and port) it was saved with (decision 099):
 * it is sealed together with that origin; a save that moves the base URL to another origin while a
 * key is saved is refused unless it gives the key again (or forgets it), and a call only carries the
 * key to the origin it was sealed with.
 */

/** Marks a key sealed with its origin: `\u0001<origin>\u0001<key>` (a key sealed before is bare). */
const BOUND = "\u0001";

const sealKey = (key: string, origin: string) => encryptSecret(`${BOUND}${origin}${BOUND}${key}`);

/** The sealed key and the origin it may go to; a bare key (sealed before decision 099) goes to the row's own. */
function unsealKey(sealed: string, baseUrl: string): { key: string; origin: string } {
  const plain = decryptSecret(sealed);
  if (!plain.startsWith(BOUND)) return { key: plain, origin: endpointOrigin(baseUrl) };
  const end = plain.indexOf(BOUND, 1);
  return { key: plain.slice(end + 1), origin: plain.slice(1, end) };
}

export type AssistantField =
  | "enabled"
  | "phoneNumberIds"
  | "instructions"
  | "baseUrl"
  | "model"
  | "apiKey"
  | "handoverText"
  | "maxTurns"
  | "monthlyCapCents"
  | "inputPriceCents"
  | "outputPriceCents"
  | "title"
  | "body"
  | "file";

export const refuseAssistant = (status: 400 | 404 | 409 | 413 | 415, message: string, field?: AssistantField) =>
  new Refusal({ domain: "automation", status, message, field });

export interface AssistantSettingsView {
  /** Saved at least once. */
  configured: boolean;
  enabled: boolean;
  phoneNumberIds: string[];
  instructions: string;
  baseUrl: string;
  model: string;
  keySaved: boolean;
  /** The saved key's last four characters ("" without one). */
  keyLast4: string;
  handoverText: string;
  maxTurns: number;
  monthlyCapCents: number;
  inputPriceCents: number;
  outputPriceCents: number;
}

interface SettingsRow {
  enabled: boolean;
  phone_number_ids: string[];
  instructions: string;
  base_url: string;
  model: string;
  api_key_sealed: string;
  api_key_last4: string;
  handover_text: string;
  max_turns: number;
  monthly_cap_cents: number | string;
  input_price_cents: number | string;
  output_price_cents: number | string;
}

const NOT_SAVED: AssistantSettingsView = {
  configured: false,
  enabled: false,
  phoneNumberIds: [],
  instructions: "",
  baseUrl: "",
  model: "",
  keySaved: false,
  keyLast4: "",
  handoverText: "",
  maxTurns: MAX_TURNS_DEFAULT,
  monthlyCapCents: 0,
  inputPriceCents: 0,
  outputPriceCents: 0,
};

const settingsRow = (organizationId: string) =>
  queryRow<SettingsRow>(
    db(),
    sql`select enabled, phone_number_ids, instructions, base_url, model, api_key_sealed, api_key_last4, handover_text, max_turns,
               monthly_cap_cents, input_price_cents, output_price_cents
        from assistant_settings where organization_id = ${organizationId}`,
  );

const viewOf = (row: SettingsRow): AssistantSettingsView => ({
  configured: true,
  enabled: row.enabled,
  phoneNumberIds: row.phone_number_ids,
  instructions: row.instructions,
  baseUrl: row.base_url,
  model: row.model,
  keySaved: row.api_key_sealed !== "",
  keyLast4: row.api_key_last4,
  handoverText: row.handover_text,
  maxTurns: row.max_turns,
  monthlyCapCents: Number(row.monthly_cap_cents),
  inputPriceCents: Number(row.input_price_cents),
  outputPriceCents: Number(row.output_price_cents),
});

export async function readAssistantSettings(organizationId: string): Promise<AssistantSettingsView> {
  const row = await settingsRow(organizationId);
  return row ? viewOf(row) : NOT_SAVED;
}

/** What answering needs: the settings with the key unsealed. Never leaves the domain. */
export interface AssistantConfig extends AssistantSettingsView {
  apiKey: string;
}

export async function assistantConfig(organizationId: string): Promise<AssistantConfig | null> {
  const row = await settingsRow(organizationId);
  if (!row) return null;
  if (!row.api_key_sealed) return { ...viewOf(row), apiKey: "" };
  // Only to the origin it was saved for: a base URL changed behind the settings' back gets no key.
  const sealed = unsealKey(row.api_key_sealed, row.base_url);
  return { ...viewOf(row), apiKey: sealed.origin === endpointOrigin(row.base_url) ? sealed.key : "" };
}

export interface AssistantSettingsInput {
  enabled: boolean;
  phoneNumberIds: string[];
  instructions: string;
  baseUrl: string;
  model: string;
  /** A new key; empty or absent keeps the saved one (only while the base URL's origin stays the same). */
  apiKey?: string;
  /** Forget the saved key (an endpoint that needs none). */
  clearKey?: boolean;
  handoverText: string;
  maxTurns: number;
  monthlyCapCents: number;
  inputPriceCents: number;
  outputPriceCents: number;
}

const text = (max: number, message: () => string) =>
  z
    .string()
    .transform((value) => value.replace(/\r\n/g, "\n").trim())
    .refine((value) => [...value].length <= max, { error: message });
const cents = z
  .number({ error: () => ASSISTANT_MESSAGES.money })
  .int({ error: () => ASSISTANT_MESSAGES.money })
  .min(0)
  .max(MONEY_MAX_CENTS);

const SettingsSchema = z.object({
  enabled: z.boolean(),
  phoneNumberIds: z.array(z.string().max(64)).max(100),
  instructions: text(INSTRUCTIONS_MAX, () => ASSISTANT_MESSAGES.instructionsTooLong),
  baseUrl: z.string().transform((value) => value.trim()),
  model: text(MODEL_MAX, () => ASSISTANT_MESSAGES.modelRequired),
  apiKey: z
    .string()
    .transform((value) => value.trim())
    .refine((value) => value.length <= API_KEY_MAX, { error: () => ASSISTANT_MESSAGES.apiKeyTooLong })
    .optional(),
  clearKey: z.boolean().optional(),
  handoverText: text(HANDOVER_TEXT_MAX, () => ASSISTANT_MESSAGES.handoverTooLong),
  maxTurns: z
    .number({ error: () => ASSISTANT_MESSAGES.maxTurns })
    .int({ error: () => ASSISTANT_MESSAGES.maxTurns })
    .min(MAX_TURNS_MIN, { error: () => ASSISTANT_MESSAGES.maxTurns })
    .max(MAX_TURNS_MAX, { error: () => ASSISTANT_MESSAGES.maxTurns }),
  monthlyCapCents: cents,
  inputPriceCents: cents,
  outputPriceCents: cents,
});

/** The settings as they will be stored, or the first thing wrong with them (by its field). */
async function checkedSettings(organizationId: string, input: AssistantSettingsInput) {
  const parsed = SettingsSchema.safeParse(input);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const field = String(issue.path[0] ?? "enabled") as AssistantField;
    const message = field.endsWith("Cents") ? ASSISTANT_MESSAGES.money : issue.message;
    throw refuseAssistant(400, message, field);
  }
  const value = parsed.data;
  const phoneNumberIds = [...new Set(value.phoneNumberIds.filter(Boolean))];
  if (phoneNumberIds.length) {
    const owned = await queryRows<{ phone_number_id: string }>(
      db(),
      sql`select distinct phone_number_id from whatsapp_phone_numbers where organization_id = ${organizationId}
            and phone_number_id = any(${sql.param(phoneNumberIds)}::text[])`,
    );
    if (owned.length !== phoneNumberIds.length) throw refuseAssistant(400, ASSISTANT_MESSAGES.number, "phoneNumberIds");
  }
  if (value.enabled && !value.handoverText) throw refuseAssistant(400, ASSISTANT_MESSAGES.handoverRequired, "handoverText");
  if (value.enabled && !value.model) throw refuseAssistant(400, ASSISTANT_MESSAGES.modelRequired, "model");
  let baseUrl = value.baseUrl;
  if (baseUrl || value.enabled) {
    const endpoint = await checkAssistantEndpoint(baseUrl);
    if (!endpoint.ok) throw refuseAssistant(400, endpoint.message, "baseUrl");
    baseUrl = endpoint.url;
  }
  // A saved key goes only where it was saved for: another origin needs the key again, or none. No
  // base URL at all sends it nowhere: the key stays sealed with its own origin.
  if (!value.apiKey && !value.clearKey && endpointOrigin(baseUrl)) {
    const saved = await settingsRow(organizationId);
    if (saved?.api_key_sealed && unsealKey(saved.api_key_sealed, saved.base_url).origin !== endpointOrigin(baseUrl))
      throw refuseAssistant(400, ASSISTANT_MESSAGES.keyForNewEndpoint, "apiKey");
  }
  return { ...value, phoneNumberIds, baseUrl };
}

/** Saves the settings whole (nothing changes on a refusal); the key only when a new one is given. */
export async function saveAssistantSettings(actor: RuleActor, input: AssistantSettingsInput): Promise<AssistantSettingsView> {
  const value = await checkedSettings(actor.organizationId, input);
  const newKey = value.apiKey ? { sealed: sealKey(value.apiKey, endpointOrigin(value.baseUrl)), last4: value.apiKey.slice(-4) } : null;
  const key = newKey ?? (value.clearKey ? { sealed: "", last4: "" } : null);
  await db().transaction(async (tx) => {
    await touchAutomations(tx, actor.organizationId, actor.userId);
    await tx.execute(sql`
      insert into assistant_settings (organization_id, enabled, phone_number_ids, instructions, base_url, model, api_key_sealed, api_key_last4,
                                      handover_text, max_turns, monthly_cap_cents, input_price_cents, output_price_cents, version, updated_by)
      values (${actor.organizationId}, ${value.enabled}, ${sql.param(value.phoneNumberIds)}::text[], ${value.instructions}, ${value.baseUrl},
              ${value.model}, ${key?.sealed ?? ""}, ${key?.last4 ?? ""}, ${value.handoverText}, ${value.maxTurns}, ${value.monthlyCapCents},
              ${value.inputPriceCents}, ${value.outputPriceCents}, 1, ${actor.userId})
      on conflict (organization_id) do update set
        enabled = excluded.enabled, phone_number_ids = excluded.phone_number_ids, instructions = excluded.instructions,
        base_url = excluded.base_url, model = excluded.model,
        api_key_sealed = ${key ? sql`excluded.api_key_sealed` : sql`assistant_settings.api_key_sealed`},
        api_key_last4 = ${key ? sql`excluded.api_key_last4` : sql`assistant_settings.api_key_last4`},
        handover_text = excluded.handover_text, max_turns = excluded.max_turns, monthly_cap_cents = excluded.monthly_cap_cents,
        input_price_cents = excluded.input_price_cents, output_price_cents = excluded.output_price_cents,
        version = assistant_settings.version + 1, updated_at = now(), updated_by = excluded.updated_by`);
  });
  await recordActivity({
    organizationId: actor.organizationId,
    userId: actor.userId,
    type: "settings",
    status: "success",
    action: "Assistant settings saved",
    meta: actor.meta,
  });
  return readAssistantSettings(actor.organizationId);
}
