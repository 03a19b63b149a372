import { env } from "../config/env";
import type { OutgoingMail } from "./transport";
import { m } from "~/paraglide/messages";
import { getLocale, type Locale } from "~/paraglide/runtime";

/**
 * The product's e-mails, each in the language of the person it goes to (issue 43): the caller passes
 * it (the member's saved language, else their organisation's: `mailLocaleOf`); in a request the
 * request's language is the default (a person signing up, asking for a code).
 */
const signed = (text: string, locale: Locale) => `${text}\n\n${m.mail_sign_off({}, { locale })}`;
const at = (path: string) => `${env().APP_URL}${path}`;

export function verificationCodeMail(to: string, code: string, locale: Locale = getLocale()): OutgoingMail {
  return {
    to,
    subject: m.mail_verification_subject({ code }, { locale }),
    text: signed(m.mail_verification_text({ code }, { locale }), locale),
  };
}

export function existingAccountMail(to: string, locale: Locale = getLocale()): OutgoingMail {
  return {
    to,
    subject: m.mail_existing_subject({}, { locale }),
    text: signed(m.mail_existing_text({ login: at("/login"), reset: at("/forgot-password") }, { locale }), locale),
  };
}

export function passwordResetMail(to: string, code: string, locale: Locale = getLocale()): OutgoingMail {
  return {
    to,
    subject: m.mail_reset_subject({ code }, { locale }),
    text: signed(m.mail_reset_text({ code }, { locale }), locale),
  };
}

/** A new browser's sign-in while the account sees many failed sign-ins (decision 044): the code, and where the password came from. */
export function signInCodeMail(to: string, code: string, from: { device: string; ip: string }, locale: Locale = getLocale()): OutgoingMail {
  const ip = from.ip || m.mail_unknown_ip({}, { locale });
  return {
    to,
    subject: m.mail_signin_code_subject({ code }, { locale }),
    text: signed(m.mail_signin_code_text({ code, device: from.device, ip, reset: at("/forgot-password") }, { locale }), locale),
  };
}

export function emailChangeMail(to: string, code: string, locale: Locale = getLocale()): OutgoingMail {
  return {
    to,
    subject: m.mail_email_change_subject({ code }, { locale }),
    text: signed(m.mail_email_change_text({ code }, { locale }), locale),
  };
}

export function passwordChangedMail(to: string, locale: Locale = getLocale()): OutgoingMail {
  return {
    to,
    subject: m.mail_password_changed_subject({}, { locale }),
    text: signed(m.mail_password_changed_text({ reset: at("/forgot-password") }, { locale }), locale),
  };
}

export function webhookDisabledMail(to: string, url: string, locale: Locale = getLocale()): OutgoingMail {
  return {
    to,
    subject: m.mail_webhook_disabled_subject({}, { locale }),
    text: signed(m.mail_webhook_disabled_text({ url, developers: at("/developers") }, { locale }), locale),
  };
}

export function whatsappReconnectMail(to: string, account: string, reason: string, locale: Locale = getLocale()): OutgoingMail {
  return {
    to,
    subject: m.mail_reconnect_subject({}, { locale }),
    text: signed(m.mail_reconnect_text({ account, reason, whatsapp: at("/whatsapp") }, { locale }), locale),
  };
}

export function invitationMail(
  to: string,
  invitation: { organization: string; invitedBy: string; role: string; link: string; expiresOn: string },
  locale: Locale = getLocale(),
): OutgoingMail {
  return {
    to,
    subject: m.mail_invitation_subject(invitation, { locale }),
    text: signed(m.mail_invitation_text(invitation, { locale }), locale),
  };
}

/** A notification the organisation's rules send by e-mail as well: what happened, and where to look in Jumbe. */
export function notificationMail(
  to: string,
  notification: { title: string; body: string; link: string | null; organization: string; event: string },
  locale: Locale = getLocale(),
): OutgoingMail {
  const where = notification.link ? `\n\n${m.mail_notification_see_it({ url: at(notification.link) }, { locale })}` : "";
  const why = m.mail_notification_why(
    { organization: notification.organization, event: notification.event, settings: at("/settings/notifications") },
    { locale },
  );
  return {
    to,
    subject: notification.title,
    text: signed(`${notification.body || notification.title}${where}\n\n${why}`, locale),
  };
}
