import { href } from "react-router";

/**
 * The sections of Account Settings, each its own page: a section the role cannot open (by the
 * permission its route declares, read by the shell's loader) has no tab.
 */
export const SETTINGS_SECTIONS: readonly { id: string; label: string; to: string }[] = [
  { id: "organisation", label: "Organisation", to: href("/settings/organisation") },
  { id: "team", label: "Team", to: href("/settings/team") },
  { id: "notifications", label: "Notifications", to: href("/settings/notifications") },
  { id: "security", label: "Security", to: href("/settings/security") },
  { id: "account", label: "Account", to: href("/settings/account") },
];
