import type { AfricastalkingContext } from "./context";
import { E164 } from "./magic";
import { optOut, receiveSms } from "./messaging";
import type { Account } from "./state";

export type Outcome = { ok: true; message: string; data?: unknown } | { ok: false; status: number; message: string };

const text = (value: unknown) => (typeof value === "string" ? value.trim() : "");

/** The account a shortcode or sender belongs to, or the one named. */
function accountFor(ctx: AfricastalkingContext, username: unknown, address: string, kind: "shortcode" | "sender"): Account | undefined {
  const named = text(username);
  if (named) return ctx.state.account(named);
  for (const account of ctx.state.accounts.values()) {
    if (
      kind === "shortcode"
        ? account.shortcodes.includes(address)
        : account.senderIds.includes(address) || account.shortcodes.includes(address)
    )
      return account;
  }
  return undefined;
}

/** A tester's phone sends an SMS to a shortcode (console and control API). */
export function incomingAction(ctx: AfricastalkingContext, input: Record<string, unknown>): Outcome {
  const from = text(input.from);
  const to = text(input.to);
  const body = typeof input.text === "string" ? input.text : "";
  if (!E164.test(from)) return { ok: false, status: 400, message: "from must be a phone number in E.164 form, e.g. +254712345678." };
  if (!/^\d{3,8}$/.test(to)) return { ok: false, status: 400, message: "to must be a shortcode (3 to 8 digits)." };
  if (body.trim() === "" || body.length > 1600) return { ok: false, status: 400, message: "text must be 1 to 1600 characters." };
  const account = accountFor(ctx, input.username, to, "shortcode");
  if (!account || !account.shortcodes.includes(to)) return { ok: false, status: 404, message: `No account has the shortcode ${to}.` };
  const { message, record } = receiveSms(ctx, account, { from, to, text: body });
  return { ok: true, message: `SMS ${message.id} from ${from} to ${to} received.`, data: { message, callback: record } };
}

/** A subscriber opts out of a sender ID (console and control API). */
export function optOutAction(ctx: AfricastalkingContext, input: Record<string, unknown>): Outcome {
  const phoneNumber = text(input.phoneNumber);
  const senderId = text(input.senderId);
  if (!E164.test(phoneNumber)) return { ok: false, status: 400, message: "phoneNumber must be a phone number in E.164 form." };
  if (!senderId) return { ok: false, status: 400, message: "senderId is required." };
  const account = accountFor(ctx, input.username, senderId, "sender");
  if (!account) return { ok: false, status: 404, message: `No account has the sender ${senderId}.` };
  const record = optOut(ctx, account, { senderId, phoneNumber });
  return { ok: true, message: `${phoneNumber} opted out of ${senderId}.`, data: { callback: record } };
}
