import type { DarajaClient } from "../../../infrastructure/clients/daraja";
import { darajaForShortcode, type MpesaShortcode } from "../shortcodes-access";

/** The one way payment requests reach Daraja: the organisation's own shortcode (paybill or till), its own credentials. */
export function requestDaraja(shortcode: MpesaShortcode): DarajaClient {
  return darajaForShortcode(shortcode);
}
