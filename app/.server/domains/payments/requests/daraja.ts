import type { DarajaClient } from "../../../infrastructure/clients/daraja";
import { darajaForShortcode, type MpesaShortcode } from "../shortcodes-access";
import { shortcodeCallbackUrls } from "../shortcodes";

/** The one way payment requests reach Daraja: the organisation's own shortcode (paybill or till), its own credentials. */
export function requestDaraja(shortcode: MpesaShortcode): DarajaClient {
  return darajaForShortcode(shortcode);
}

/** Where Daraja posts a request's STK results and its shortcode's C2B calls. */
export function requestCallbackUrls(shortcode: MpesaShortcode) {
  return shortcodeCallbackUrls(shortcode.callbackToken);
}
