import { Refusal } from "../../../infrastructure/refusal";

/** Why something about conversions is refused. Nothing has changed when one is thrown. */
export const refuseConversion = (
  status: 403 | 404 | 409 | 502,
  code: "forbidden" | "not_found" | "no_consent" | "no_ad" | "no_account" | "meta_failed",
  message: string,
) => new Refusal({ domain: "ads", status, code, message });
