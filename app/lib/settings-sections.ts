import { href } from "react-router";
import { m } from "~/paraglide/messages";

/**
 * The sections of Account Settings, each its own page: a section the role cannot open (by the
 * permission its route declares, read by the shell's loader) has no tab. A label is read when
 * used, in the request's language.
 */
export const SETTINGS_SECTIONS: readonly { id: string; readonly label: string; to: string }[] = [
  {
    id: "organisation",
    get label() {
      return m.settings_section_organisation();
    },
    to: href("/settings/organisation"),
  },
  {
    id: "team",
    get label() {
      return m.settings_section_team();
    },
    to: href("/settings/team"),
  },
  {
    id: "payments",
    get label() {
      return m.settings_section_payments();
    },
    to: href("/settings/payments"),
  },
  {
    id: "sms",
    get label() {
      return m.settings_section_sms();
    },
    to: href("/settings/sms"),
  },
  {
    id: "ads",
    get label() {
      return m.ads_settings_section();
    },
    to: href("/settings/ads"),
  },
  {
    id: "retention",
    get label() {
      return m.retention_section();
    },
    to: href("/settings/retention"),
  },
  {
    id: "notifications",
    get label() {
      return m.settings_section_notifications();
    },
    to: href("/settings/notifications"),
  },
  {
    id: "security",
    get label() {
      return m.settings_section_security();
    },
    to: href("/settings/security"),
  },
  {
    id: "account",
    get label() {
      return m.settings_section_account();
    },
    to: href("/settings/account"),
  },
];
