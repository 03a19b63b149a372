/** The partner forms' fields (issue 46), as the pages draw them and the server reads them. */
export const PARTNER_FIELD_NAMES = [
  "name",
  "category",
  "share",
  "shareOther",
  "reason",
  "payoutMethod",
  "mpesaPhone",
  "bank",
  "bankBranch",
  "accountName",
  "accountNumber",
  "kraPin",
  "resident",
  "code",
] as const;

/** The fields of the partner forms, as posted ("" when empty). */
export type PartnerFields = Record<(typeof PARTNER_FIELD_NAMES)[number], string>;
