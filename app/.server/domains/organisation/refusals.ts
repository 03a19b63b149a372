import { Refusal } from "../../infrastructure/refusal";
/**
 * Why a change to the organisation is refused: a stable code, a plain sentence, and the form field
 * it is about when there is one. Nothing has changed when one is thrown.
 */
export const refuseOrganisation = (
  status: 400 | 403 | 409,
  code: "forbidden" | "wrong_password" | "name_mismatch" | "already_closing" | "not_closing" | "grace_over",
  message: string,
  field?: "password" | "confirmName",
) => new Refusal({ domain: "organisation", status, code, message, field });

export const ORGANISATION_REFUSALS = {
  forbidden: "Only the organisation's owner and admins can change its details.",
  ownerOnly: "Only the owner can close or reopen the organisation.",
  wrongPassword: "The password is not correct.",
  alreadyClosing: "The organisation is already closing.",
  notClosing: "The organisation is not closing.",
  graceOver: "The 30 days to reopen the organisation are over: its data is being erased.",
} as const;
