import { env } from "../config/env";
import type { OutgoingMail } from "./transport";

const SIGN_OFF = "\n\nKaribu,\nThe Jumbe team";

export function verificationCodeMail(to: string, code: string): OutgoingMail {
  return {
    to,
    subject: `Your Jumbe verification code: ${code}`,
    text: `Your Jumbe verification code is ${code}.\n\nEnter it on the Verify Email page within 10 minutes. If you did not create a Jumbe account, you can ignore this e-mail.${SIGN_OFF}`,
  };
}

export function existingAccountMail(to: string): OutgoingMail {
  return {
    to,
    subject: "Someone tried to sign up with your e-mail",
    text: `Someone tried to create a Jumbe account with this e-mail address, which already has one.\n\nIf it was you, sign in at ${env().APP_URL}/login, or reset your password at ${env().APP_URL}/forgot-password. If it was not you, no action is needed: nothing about your account has changed.${SIGN_OFF}`,
  };
}

export function passwordResetMail(to: string, code: string): OutgoingMail {
  return {
    to,
    subject: `Your Jumbe password reset code: ${code}`,
    text: `Your Jumbe password reset code is ${code}.\n\nEnter it on the reset page within 10 minutes to choose a new password. If you did not ask to reset your password, ignore this e-mail; your password stays the same.${SIGN_OFF}`,
  };
}

/** A new browser's sign-in while the account sees many failed sign-ins (decision 044): the code, and where the password came from. */
export function signInCodeMail(to: string, code: string, from: { device: string; ip: string }): OutgoingMail {
  return {
    to,
    subject: `Your Jumbe sign-in code: ${code}`,
    text: `Your Jumbe sign-in code is ${code}.\n\nYour password was just entered to sign in to Jumbe from a new browser (${from.device}, IP address ${from.ip || "unknown"}). Many sign-ins to your account have failed lately, so a new browser also needs this code. Enter it on the sign-in page within 10 minutes. Browsers you signed in with before are not asked for it.\n\nIf this was not you, do not give this code to anyone: someone knows your password. Reset it now at ${env().APP_URL}/forgot-password.${SIGN_OFF}`,
  };
}

export function emailChangeMail(to: string, code: string): OutgoingMail {
  return {
    to,
    subject: `Confirm your new Jumbe e-mail: ${code}`,
    text: `Your code to confirm this address for your Jumbe account is ${code}. It is valid for 10 minutes.${SIGN_OFF}`,
  };
}

export function passwordChangedMail(to: string): OutgoingMail {
  return {
    to,
    subject: "Your Jumbe password was changed",
    text: `The password of your Jumbe account was just changed. If this was not you, reset it now at ${env().APP_URL}/forgot-password.${SIGN_OFF}`,
  };
}

export function webhookDisabledMail(to: string, url: string): OutgoingMail {
  return {
    to,
    subject: "Your Jumbe webhook endpoint was disabled",
    text: `Jumbe could not deliver events to your webhook endpoint for three days, so it has stopped sending to it:\n\n${url}\n\nOnce the endpoint answers again, re-enable it on the Developers page at ${env().APP_URL}/developers. The events that failed are listed there and can be redelivered.${SIGN_OFF}`,
  };
}

export function whatsappReconnectMail(to: string, account: string, reason: string): OutgoingMail {
  return {
    to,
    subject: "Reconnect your WhatsApp account to keep sending",
    text: `Meta stopped accepting Jumbe's access to your WhatsApp Business Account ${account} (${reason}). Messages from its numbers are waiting and nothing has been lost.\n\nConnect the account again with Embedded Signup on the WhatsApp page at ${env().APP_URL}/whatsapp. Once it is connected, the waiting messages are sent.${SIGN_OFF}`,
  };
}

export function invitationMail(
  to: string,
  invitation: { organization: string; invitedBy: string; role: string; link: string; expiresOn: string },
): OutgoingMail {
  return {
    to,
    subject: `${invitation.invitedBy} invited you to ${invitation.organization} on Jumbe`,
    text: `${invitation.invitedBy} invited you to join ${invitation.organization} on Jumbe as ${invitation.role}.\n\nAccept the invitation and choose your password here (the link works once, until ${invitation.expiresOn}):\n\n${invitation.link}\n\nIf you did not expect this, ignore this e-mail: nothing happens unless you open the link.${SIGN_OFF}`,
  };
}

/** A notification the organisation's rules send by e-mail as well: what happened, and where to look in Jumbe. */
export function notificationMail(
  to: string,
  notification: { title: string; body: string; link: string | null; organization: string; event: string },
): OutgoingMail {
  const where = notification.link ? `\n\nSee it in Jumbe: ${env().APP_URL}${notification.link}` : "";
  return {
    to,
    subject: notification.title,
    text: `${notification.body || notification.title}${where}\n\nYou get this e-mail because ${notification.organization}'s notification settings send "${notification.event}" by e-mail to your role. Owners and admins change them at ${env().APP_URL}/settings/notifications.${SIGN_OFF}`,
  };
}
