import { sql, type SQL } from "drizzle-orm";
import type { ParameterSource } from "../../infrastructure/db/schema/campaigns";
import type { AttributeDefinition } from "../contacts";
import { refuseCampaign } from "./refusals";
import { byCount } from "~/lib/intl";
import { m } from "~/paraglide/messages";

/** The contact fields a placeholder can take, besides the tenant's custom attributes. */
export const BUILT_IN_FIELDS: { readonly name: string; readonly first_name: string; readonly phone: string } = {
  // Read when shown: the request's language.
  get name() {
    return m.messaging_field_full_name();
  },
  get first_name() {
    return m.messaging_field_first_name();
  },
  get phone() {
    return m.messaging_field_phone_number();
  },
};
export const PARAMETER_MAX = 1024;

/** What a placeholder reads from one recipient: their contact, if they have one. */
export interface RecipientFields {
  name: string | null;
  phone: string;
  attributes: Record<string, unknown> | null;
}

/**
 * Meta refuses a parameter with a line break, a tab or more than four spaces in a row (132018):
 * one line, single spaces, at most 1,024 characters.
 */
export const parameterText = (value: string) => value.replace(/\s+/g, " ").trim().slice(0, PARAMETER_MAX);

/** Checks each mapping: a known field (or a fixed text), fallbacks that Meta would take. Answers them tidied. */
export function checkParameterSources(
  sources: ParameterSource[],
  expected: number,
  attributes: Map<string, AttributeDefinition>,
  label = "body",
  /** What each value is called in a refusal: {{1}}, {{2}}... unless given. */
  names: string[] = [],
): ParameterSource[] {
  const nameOf = (i: number) => names[i] ?? `{{${i + 1}}}`;
  if (sources.length !== expected)
    throw refuseCampaign(422, "invalid_parameters", countRefusal(label, expected, sources.length), "parameters");
  return sources.map((source, i) => {
    if ("value" in source) {
      const value = parameterText(String(source.value ?? ""));
      if (!value) throw refuseCampaign(422, "invalid_parameters", m.messaging_parameters_value_required({ name: nameOf(i) }), "parameters");
      return { value };
    }
    const field = String(source.field ?? "").trim();
    if (!(field in BUILT_IN_FIELDS) && !attributes.has(field))
      throw refuseCampaign(
        422,
        "invalid_parameters",
        field
          ? m.messaging_parameters_unknown_field({ name: nameOf(i), field: field.slice(0, 40) })
          : m.messaging_parameters_unmapped({ name: nameOf(i) }),
        "parameters",
      );
    const fallback = source.fallback === undefined ? undefined : parameterText(String(source.fallback));
    return fallback ? { field, fallback } : { field };
  });
}

/** "The template's body takes 2 values; 1 was given." for the body, a text header or the buttons. */
function countRefusal(label: string, expected: number, given: number) {
  const part =
    label === "header"
      ? m.messaging_parameters_part_header()
      : label === "buttons"
        ? m.messaging_parameters_part_buttons()
        : m.messaging_parameters_part_body();
  const inputs = { part, expected, given };
  return byCount(
    expected,
    () =>
      byCount(
        given,
        () => m.messaging_parameters_count_one_given_one(inputs),
        () => m.messaging_parameters_count_one_given_other(inputs),
      ),
    () =>
      byCount(
        given,
        () => m.messaging_parameters_count_other_given_one(inputs),
        () => m.messaging_parameters_count_other_given_other(inputs),
      ),
  );
}

/** One placeholder's value for one recipient: the field, else the fallback; empty when neither. */
export function parameterValue(source: ParameterSource, recipient: RecipientFields): string {
  if ("value" in source) return source.value;
  return parameterText(fieldValue(source.field, recipient)) || source.fallback || "";
}

/**
 * A contact named only by their number (one who first wrote by SMS, an import without names) has no
 * name to greet them by: "Habari +254712345678" reads wrong, the placeholder's fallback reads right.
 * The same rule is NUMBER_AS_NAME_SQL for the SQL that counts the contacts a placeholder leaves empty.
 */
const NUMBER_AS_NAME = /^\+?[\d\s-]+$/;
const NUMBER_AS_NAME_SQL = "^\\+?[0-9 -]+$";
const personName = (name: string | null | undefined) => (name && !NUMBER_AS_NAME.test(name.trim()) ? name : "");

function fieldValue(field: string, recipient: RecipientFields): string {
  switch (field) {
    case "name":
      return personName(recipient.name);
    case "first_name":
      return personName(recipient.name).trim().split(/\s+/)[0] ?? "";
    case "phone":
      return recipient.phone;
    default: {
      const value = recipient.attributes?.[field];
      if (value === undefined || value === null) return "";
      if (typeof value === "boolean") return value ? "Yes" : "No";
      return String(value);
    }
  }
}

/** SQL that is true for a contact `c` that leaves some placeholder empty (mapped to a field, with no fallback). */
export function missingValueCondition(sources: ParameterSource[], phone: SQL = sql`c.phone`): SQL {
  const checks = sources.flatMap((source) => {
    if ("value" in source || source.fallback) return [];
    const expression =
      source.field === "name" || source.field === "first_name"
        ? sql`(case when c.name ~ ${NUMBER_AS_NAME_SQL} then '' else c.name end)`
        : source.field === "phone"
          ? phone
          : sql`(c.attributes ->> ${source.field})`;
    return [sql`coalesce(btrim(${expression}), '') = ''`];
  });
  return checks.length ? sql`(${sql.join(checks, sql` or `)})` : sql`false`;
}
