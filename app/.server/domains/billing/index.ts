/**
 * The billing domain's public entry: what other domains may use of it. A domain imports another only
 * through its index.ts (tests/architecture/layers.test.ts); routes and adapters may reach further.
 */
export { reconcileBankTransfer } from "./bank";
export {
  WALLET_EMPTY_PAUSE,
  WALLET_EMPTY_PAUSE_BEFORE,
  chargeAccepted,
  chargeColumns,
  estimateSendCost,
  holdForQueued,
  insufficientBalanceText,
  sendPrice,
  settleFailed,
} from "./charging";
export type { SendPrice } from "./charging";
export { winAnsiText } from "./invoice-pdf";
export { AMOUNT_DUE_SQL, invoiceDocument, issueInvoice } from "./invoices";
export { changeWallet, walletState } from "./ledger";
export { messagesUsedThisMonth, messagesUsedThisMonthAt, messagesUsedThisMonthSql } from "./month-usage";
export { foldUsage, pendingUsageRows, USAGE_FOLD_QUEUE, USAGE_ROWS } from "./usage-fold";
export { callbackSourceAllowed, fromSafaricom } from "./mpesa";
export { createPayment } from "./payments";
export { nairobiDate, nairobiMidnight, nairobiMonth, nairobiMonthBounds, periodAt, previousPeriod } from "./periods";
export { lineFromGross } from "./vat";
