import { m } from "~/paraglide/messages";
import { formatKes } from "~/lib/invoice";
import { invoiceWords } from "~/lib/invoice-words";

/**
 * A wallet entry's stored description in the reader's language (issue 43): the ledger keeps what
 * the billing code wrote, in English (charging.ts, payments.ts, settle-invoices.ts), and the
 * console's wallet page says it for whoever reads. Amounts are written again for the language;
 * receipts, references, invoice numbers and an administrator's own reason stay as written.
 */
const METHODS: Record<string, () => string> = {
  "M-Pesa": () => "M-Pesa",
  "M-Pesa paybill": () => "M-Pesa paybill",
  card: () => m.admin_wallet_method_card(),
  "bank transfer": () => m.admin_wallet_method_bank(),
};
const METHOD = Object.keys(METHODS)
  .sort((a, b) => b.length - a.length)
  .map((method) => method.replace(/[.*+?^${}()|[\]\\-]/g, "\\$&"))
  .join("|");
// "KES 1,234.50", as formatKes writes it in English.
const KES = String.raw`KES (?<amount>[\d,]+\.\d{2})`;

const cents = (amount: string) => Math.round(Number(amount.replaceAll(",", "")) * 100);
const amountOf = (groups: Record<string, string>) => formatKes(cents(groups.amount!));
const counted = (groups: Record<string, string>, one: () => string, many: () => string) => (groups.count === "1" ? one() : many());

const PATTERNS: { pattern: RegExp; words: (groups: Record<string, string>) => string }[] = [
  {
    pattern: new RegExp(String.raw`^(?<count>\d+) messages? sent, ${KES}$`),
    words: (g) =>
      counted(
        g,
        () => m.admin_wallet_entry_sent_one({ amount: amountOf(g) }),
        () => m.admin_wallet_entry_sent({ count: g.count!, amount: amountOf(g) }),
      ),
  },
  {
    pattern: new RegExp(String.raw`^(?<count>\d+) messages? not sent: ${KES} released$`),
    words: (g) =>
      counted(
        g,
        () => m.admin_wallet_entry_not_sent_one({ amount: amountOf(g) }),
        () => m.admin_wallet_entry_not_sent({ count: g.count!, amount: amountOf(g) }),
      ),
  },
  {
    pattern: new RegExp(String.raw`^(?<count>\d+) messages? failed after sending: ${KES} refunded$`),
    words: (g) =>
      counted(
        g,
        () => m.admin_wallet_entry_failed_one({ amount: amountOf(g) }),
        () => m.admin_wallet_entry_failed({ count: g.count!, amount: amountOf(g) }),
      ),
  },
  {
    pattern: new RegExp(`^(?<method>${METHOD}) payment (?<reference>\\S+)$`),
    words: (g) => m.admin_wallet_entry_payment({ method: METHODS[g.method!]!(), reference: g.reference! }),
  },
  {
    pattern: new RegExp(`^(?<method>${METHOD}) payment$`),
    words: (g) => m.admin_wallet_entry_payment_plain({ method: METHODS[g.method!]!() }),
  },
  {
    pattern: new RegExp(`^Invoice (?<number>\\S+) paid by (?<method>${METHOD})$`),
    words: (g) => m.admin_wallet_entry_invoice_paid_by({ number: g.number!, method: METHODS[g.method!]!() }),
  },
  {
    pattern: /^Invoice (?<number>\S+) paid from the wallet$/,
    words: (g) => m.admin_wallet_entry_invoice_paid_from_wallet({ number: g.number! }),
  },
  // A change of billing type (decision 124) and a paid top-up credited (issue 72).
  {
    pattern: new RegExp(String.raw`^${KES} of prepaid credit is now money on account \(credit note (?<note>\S+) for (?<number>\S+)\)$`),
    words: (g) => m.admin_wallet_entry_prepaid_to_account({ amount: amountOf(g), note: g.note!, number: g.number! }),
  },
  {
    pattern: new RegExp(String.raw`^${KES} of money on account is now prepaid credit \(tax invoice (?<number>\S+)\)$`),
    words: (g) => m.admin_wallet_entry_account_to_prepaid({ amount: amountOf(g), number: g.number! }),
  },
  {
    pattern: /^Credit note (?<note>\S+) for (?<number>\S+): paid back to the payer$/,
    words: (g) => m.admin_wallet_entry_paid_back({ note: g.note!, number: g.number! }),
  },
];

export function walletEntryWords(description: string): string {
  for (const { pattern, words } of PATTERNS) {
    const groups = pattern.exec(description)?.groups;
    if (groups) return words(groups);
  }
  // A top-up's entry says what its invoice's line says.
  return invoiceWords(description);
}
