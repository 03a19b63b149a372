import { env } from "../../../infrastructure/config/env";

/**
 * How the Google Sheets page opens the Google Picker (issue 73, decision 109), for its script
 * (app/assets/google-picker.js). With `drive.file`, the Picker is how a spreadsheet made elsewhere
 * is given to Jumbe: choosing it there grants Jumbe that one file.
 *
 * - `google`: Google's own Picker, its loader (GOOGLE_PICKER_SCRIPT_URL) fetched on the click, with
 *   the developer key (GOOGLE_PICKER_API_KEY) and the Cloud project's number (the OAuth client id's
 *   prefix: the app the file is granted to).
 * - `sandbox`: the Google sandbox's stand-in Picker page (where the consent page is), opened in a
 *   window; it answers with Google's callback data by postMessage.
 * - null: no Picker (production without a developer key): only "Create a new sheet".
 */
export type PickerConfig =
  | { mode: "google"; scriptUrl: string; developerKey: string; appId: string; tokenUrl: string }
  | { mode: "sandbox"; pickerUrl: string; tokenUrl: string };

const TOKEN_URL = "/integrations/google-sheets/picker-token";

export function pickerConfig(): PickerConfig | null {
  const settings = env();
  if (settings.GOOGLE_PICKER_API_KEY) {
    const appId = /^(\d+)-/.exec(settings.GOOGLE_CLIENT_ID ?? "")?.[1] ?? "";
    return {
      mode: "google",
      scriptUrl: settings.GOOGLE_PICKER_SCRIPT_URL,
      developerKey: settings.GOOGLE_PICKER_API_KEY,
      appId,
      tokenUrl: TOKEN_URL,
    };
  }
  if (settings.sandbox) return { mode: "sandbox", pickerUrl: `${settings.GOOGLE_AUTH_URL}/picker`, tokenUrl: TOKEN_URL };
  return null;
}
