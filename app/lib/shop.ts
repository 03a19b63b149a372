// The shop's lists and names both the server and the pages read (decision 138).

/** received (the cart arrived) → awaiting_payment (a payment request went out) → paid, or cancelled. */
export const ORDER_STATUSES = ["received", "awaiting_payment", "paid", "cancelled"] as const;
export type OrderStatus = (typeof ORDER_STATUSES)[number];

/** The import form's file field. */
export const PRODUCT_IMPORT_FIELD = "file";
