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
