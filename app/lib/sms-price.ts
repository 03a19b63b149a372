import { smsParts, type SmsParts } from "~/lib/sms-parts";

/**
 * What Jumbe charges an organisation for one SMS part, in cents of KES (decision 148): KES 1.00, above
 * Africa's Talking's observed KES 0.80 a part (its rate card is not published), the same for every plan.
 * Pure, so the composer's estimate and the server's charge are the same sum.
 */
export const SMS_PART_PRICE_CENTS = 100;

/** The longest SMS the inbox sends: ten GSM-7 parts (about 1,530 characters). */
export const SMS_MAX_LENGTH = 1530;

export interface SmsEstimate extends SmsParts {
  priceCents: number;
}

/** Parts × the price of a part. */
export function smsEstimate(text: string): SmsEstimate {
  const parts = smsParts(text);
  return { ...parts, priceCents: parts.parts * SMS_PART_PRICE_CENTS };
}
