import { Honeypot, SpamError } from "remix-utils/honeypot/server";
import { env } from "../config/env";

let honeypot: Honeypot | undefined;

// Seeded from SESSION_SECRET so every instance behind nginx accepts every other's timestamps.
function instance() {
  honeypot ??= new Honeypot({ encryptionSeed: env().SESSION_SECRET });
  return honeypot;
}

export function honeypotInputProps() {
  return instance().getInputProps();
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
