import { Honeypot, SpamError } from "remix-utils/honeypot/server";
import { env } from "../config/env";

let honeypot: Honeypot | undefined;

// Seeded from SESSION_SECRET so every instance behind nginx accepts every other's timestamps.
function instance() {
  honeypot ??= new Honeypot({ encryptionSeed: env().SESSION_SECRET });
  return honeypot;
}

let recent: { at: number; props: ReturnType<Honeypot["getInputProps"]> } | undefined;

/**
 * The hidden inputs of a public form. The encrypted "valid from" time is made at most once a second
 * and shared by the pages rendered in that second: the check only asks that it decrypts and lies in
 * the past, which a second-old value does, and the encryption was about 4% of a sign-in page's time.
 */
export function honeypotInputProps() {
  const now = Date.now();
  if (!recent || now - recent.at >= 1000 || now < recent.at)
    recent = { at: now, props: instance().getInputProps({ validFromTimestamp: now }) };
  return recent.props;
}

/** True when a bot filled the hidden field (or tampered with its timestamp). */
export async function isSpam(formData: FormData) {
  try {
    await instance().check(formData);
    return false;
  } catch (error) {
    if (error instanceof SpamError) return true;
    throw error;
  }
}
