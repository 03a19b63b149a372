import { env } from "../../../infrastructure/config/env";
import type { DarajaClient } from "../../../infrastructure/clients/daraja";
import { darajaForShortcode, type MpesaShortcode } from "../shortcodes-access";

/**
 * The one way payment requests reach Daraja: the organisation's own shortcode, its own credentials.
 * (Issue 76: till support in the client comes with the shortcodes' work; switch it here.)
 */
export function requestDaraja(shortcode: MpesaShortcode): DarajaClient {
  return darajaForShortcode(shortcode, env().MPESA_BASE_URL);
}

/** Where Daraja posts a request's STK results and its paybill's C2B calls. No "mpesa" in them: Daraja refuses it in production. */
export function requestCallbackUrls(shortcode: MpesaShortcode) {
  const base = `${env().MPESA_CALLBACK_BASE_URL}/webhooks/pay/${shortcode.callbackToken}`;
  return { stk: `${base}/stk`, validation: `${base}/c2b/validation`, confirmation: `${base}/c2b/confirmation` };
}
