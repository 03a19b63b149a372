/** Payment settings a production configuration needs (the demo ones are refused there), for tests that parse one. */
export const PRODUCTION_PAYMENTS = {
  MPESA_CONSUMER_KEY: "live-consumer-key",
  MPESA_CONSUMER_SECRET: "live-consumer-secret",
  MPESA_PASSKEY: "p".repeat(64),
  MPESA_SHORTCODE: "4012345",
  MPESA_CALLBACK_BASE_URL: "https://app.jumbe.co.ke",
  PAYSTACK_SECRET_KEY: `sk_live_${"a".repeat(40)}`,
  INVOICE_SELLER_KRA_PIN: "P051234567Q",
};
