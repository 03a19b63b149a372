import { Refusal } from "../../../infrastructure/refusal";
/** A refused admin billing action: the HTTP status, a sentence for the administrator, and the form field it is about. */
export const refuseAdminBilling = (status: 400 | 404 | 409 | 422 | 429 | 502, message: string, field?: string) =>
  new Refusal({ domain: "admin_billing", status, message, field });

export const NOT_FOUND = "Not Found: The requested resource does not exist.";

/** Whole shillings, or shillings and cents ("1,500", "1500.50"), from a form field, as cents; null if it is not one. */
export function parseShillings(value: unknown): number | null {
  const text = typeof value === "string" ? value.trim().replace(/,/g, "") : "";
  if (!/^\d{1,9}(\.\d{1,2})?$/.test(text)) return null;
  const [whole, fraction = ""] = text.split(".");
  return Number(whole) * 100 + Number(fraction.padEnd(2, "0"));
}

/** A form's text field, trimmed ("" when missing). */
export const formText = (form: FormData, name: string) => String(form.get(name) ?? "").trim();

/** Several of a form's text fields by name, each trimmed ("" when missing): a domain function's input. */
export function formTexts<Name extends string>(form: FormData, ...names: Name[]): Record<Name, string> {
  return Object.fromEntries(names.map((name) => [name, formText(form, name)])) as Record<Name, string>;
}
