import { rawQuery } from "../../infrastructure/db/client";
import { refuseContact } from "./refusals";
import { m } from "~/paraglide/messages";

export type AttributeType = "text" | "number" | "date" | "boolean";
export type AttributeValue = string | number | boolean;

export interface AttributeDefinition {
  key: string;
  label: string;
  type: AttributeType;
}

/** The tenant's custom contact fields, by key. */
export async function attributeDefinitions(organizationId: string): Promise<Map<string, AttributeDefinition>> {
  const rows = await rawQuery<AttributeDefinition>(
    `select key, label, type from contact_attributes where organization_id = $1 order by label`,
    [organizationId],
  );
  return new Map(rows.map((r) => [r.key, r]));
}

const TEXT_MAX = 1000;

/** One value checked against its definition and stored in its type; null or "" removes it. */
export function attributeValue(definition: AttributeDefinition, value: unknown): AttributeValue | null {
  if (value === null || value === undefined || value === "") return null;
  const bad = (why: string) => refuseContact(422, "invalid_attribute", m.messaging_attribute_invalid({ label: definition.label, why }));
  switch (definition.type) {
    case "text": {
      const text = String(value).trim();
      if (text.length > TEXT_MAX) throw bad(m.messaging_attribute_too_long({ max: TEXT_MAX }));
      return text;
    }
    case "number": {
      const n = typeof value === "number" ? value : Number(String(value).replace(/,/g, "").trim());
      if (!Number.isFinite(n)) throw bad(m.messaging_attribute_not_number({ value: String(value).slice(0, 40) }));
      return n;
    }
    case "boolean": {
      if (typeof value === "boolean") return value;
      const word = String(value).trim().toLowerCase();
      if (["true", "yes", "ndiyo", "1", "y"].includes(word)) return true;
      if (["false", "no", "hapana", "0", "n"].includes(word)) return false;
      throw bad(m.messaging_attribute_not_boolean({ value: String(value).slice(0, 40) }));
    }
    case "date": {
      const text = String(value).trim();
      const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text);
      const date = match ? new Date(Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3]))) : undefined;
      if (!date || date.toISOString().slice(0, 10) !== text) throw bad(m.messaging_attribute_not_date({ value: text.slice(0, 40) }));
      return text;
    }
  }
}

/**
 * Values for the tenant's attributes: unknown keys refused, each value in its type. Answers the
 * values to set and the keys to remove.
 */
export function checkAttributes(definitions: Map<string, AttributeDefinition>, values: Record<string, unknown>) {
  const set: Record<string, AttributeValue> = {};
  const remove: string[] = [];
  for (const [key, value] of Object.entries(values)) {
    const definition = definitions.get(key);
    if (!definition)
      throw refuseContact(
        422,
        "unknown_attribute",
        definitions.size
          ? m.messaging_attribute_unknown_listed({ key: key.slice(0, 60), keys: [...definitions.keys()].join(", ") })
          : m.messaging_attribute_unknown({ key: key.slice(0, 60) }),
      );
    const checked = attributeValue(definition, value);
    if (checked === null) remove.push(key);
    else set[key] = checked;
  }
  return { set, remove };
}
