import { isRefusal, type Refusal } from "../../infrastructure/refusal";

/** Which form field a refusal belongs to, so it shows beside that field. */
export function refusalField(error: Refusal): string | null {
  switch (error.code) {
    case "invalid_phone_number":
    case "duplicate_phone":
    case "erased_contact":
      return "phone";
    case "invalid_name":
      return error.message.startsWith("Notes") ? "notes" : "name";
    case "invalid_tag":
      return "tags";
    case "invalid_consent":
      return "evidence";
    default:
      return null;
  }
}

export const isContactRefusal = (error: unknown): error is Refusal => isRefusal(error, "contact");
