import { onWalletCredited } from "../domains/billing/wallet-credited";
import { resumeWalletPausedCampaigns } from "../domains/campaigns/wallet-resume";
import { flowPaymentClosed } from "../domains/automations";
import { onContactErasing } from "../domains/contacts/rights";
import { queueCopiesErasure } from "../domains/integrations/erasure";
import { onPaymentRequestClosed } from "../domains/payments";
import { settleOrderOfRequest } from "../domains/shop";
import { shopifyOrderPaymentClosed } from "../domains/integrations/shopify/order-payments";
import { onMessageStatusChanges } from "../domains/messaging";
import { fallbackOnStatusChanges, forgetReportNumbers } from "../domains/sms";
import { conversionOnRequestClosed } from "../domains/ads";

/**
 * The reactions a lower domain announces and a higher one performs, wired once per process by the
 * server (and the integration tests' setup), so imports between domains only go one way.
 */
export function wireDomainEvents() {
  onWalletCredited("campaigns.resume-wallet-paused", resumeWalletPausedCampaigns);
  onContactErasing("integrations.erase-copies", queueCopiesErasure);
  onContactErasing("sms.report-numbers", forgetReportNumbers);
  onPaymentRequestClosed("shop.settle-order", settleOrderOfRequest);
  onPaymentRequestClosed("automations.flow-payment", flowPaymentClosed);
  onPaymentRequestClosed("integrations.shopify-order-paid", shopifyOrderPaymentClosed);
  onPaymentRequestClosed("ads.conversion-purchase", conversionOnRequestClosed);
  onMessageStatusChanges("sms.fallback", fallbackOnStatusChanges);
}
