/**
 * Paystack's documented test cards (paystack.com/docs/payments/test-payments), the ones the
 * sandbox's checkout knows. Any future expiry works; the CVV shown is the documented one, but any
 * three or four digits are taken. Every other number is refused as a real card would be in test mode.
 */
export type CardOutcome = "success" | "declined" | "3ds";

export interface TestCard {
  number: string;
  cvv: string;
  brand: "visa" | "mastercard";
  outcome: CardOutcome;
  /** What the checkout's list says the card does. */
  description: string;
  /** Paystack's gateway_response once the charge settles (3-D Secure: after a correct OTP). */
  gatewayResponse: string;
}

export const TEST_CARDS: readonly TestCard[] = [
  {
    number: "4084084084084081",
    cvv: "408",
    brand: "visa",
    outcome: "success",
    description: "Succeeds, no authentication",
    gatewayResponse: "Successful",
  },
  {
    number: "4084080000670037",
    cvv: "787",
    brand: "visa",
    outcome: "declined",
    description: "Declined: insufficient funds",
    gatewayResponse: "Insufficient Funds",
  },
  {
    number: "4084080000000409",
    cvv: "000",
    brand: "visa",
    outcome: "3ds",
    description: "Asks for 3-D Secure: the bank's one-time code",
    gatewayResponse: "Approved",
  },
];

/** The one-time code the sandbox's 3-D Secure page accepts (Paystack's documented test OTP). */
export const TEST_OTP = "123456";
/** gateway_response when the 3-D Secure code is wrong. */
export const OTP_FAILED_RESPONSE = "3DS Authentication Failed";

/** The card a control-API payment uses for an outcome. */
export function cardFor(outcome: CardOutcome): TestCard {
  return TEST_CARDS.find((card) => card.outcome === outcome)!;
}

/** A card number as typed (spaces, dashes) reduced to its digits, or undefined if it is not one. */
export function normaliseCardNumber(input: string): string | undefined {
  const digits = input.replace(/[\s-]/g, "");
  return /^\d{12,19}$/.test(digits) ? digits : undefined;
}

export function testCard(number: string): TestCard | undefined {
  return TEST_CARDS.find((card) => card.number === number);
}

/** "4084 0840 8408 4081" */
export function groupDigits(number: string) {
  return number.replace(/(\d{4})(?=\d)/g, "$1 ");
}

/**
 * An expiry typed as MM/YY, MM/YYYY or MMYY: the month and four-digit year, or an error the
 * checkout shows. A card is good through the last day of its month.
 */
export function parseExpiry(input: string, now: Date): { month: string; year: string } | { error: string } {
  const match = /^\s*(\d{1,2})\s*\/?\s*(\d{2}|\d{4})\s*$/.exec(input);
  if (!match) return { error: "Enter the expiry date as MM/YY." };
  const month = Number(match[1]);
  if (month < 1 || month > 12) return { error: "The expiry month must be 01 to 12." };
  const year = match[2]!.length === 2 ? 2000 + Number(match[2]) : Number(match[2]);
  const endOfMonth = Date.UTC(year, month, 1);
  if (endOfMonth <= now.getTime()) return { error: "This card has expired: test cards take any future date." };
  return { month: String(month).padStart(2, "0"), year: String(year) };
}
