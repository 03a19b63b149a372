import { db } from "../../../infrastructure/db/client";
import type { CurrentUser } from "../../auth";
import type { RequestMeta } from "../../../infrastructure/http/request-meta";
import type { PlatformScope } from "../../../infrastructure/db/scope";
import { recordAdminAction } from "../audit";
import { PLATFORM_SETTINGS, readBooleanSetting, writeBooleanSetting } from "../../../infrastructure/config/platform-settings";

/**
 * "Hold new organisations' template submissions" (decision 039): when on, an organisation made by
 * sign-up starts with template_review on (auth/signup.ts reads it in its INSERT), as if an
 * administrator had held it; releasing it works as for any held organisation. Off by default.
 */
const SETTING = PLATFORM_SETTINGS.holdNewOrganisationsTemplates;

export function holdsNewOrganisations(_scope: PlatformScope) {
  return readBooleanSetting(db(), SETTING);
}

/** Turns the setting on or off, audited with its before and after; answers whether it changed. */
export async function setHoldNewOrganisations(
  _scope: PlatformScope,
  admin: Pick<CurrentUser, "user">,
  meta: RequestMeta,
  on: boolean,
  reasonInput?: string,
) {
  const reason = reasonInput?.trim().slice(0, 1000) || null;
  return db().transaction(async (tx) => {
    const before = await readBooleanSetting(tx, SETTING, true);
    if (before === on) return false;
    await writeBooleanSetting(tx, SETTING, on, admin.user.id);
    await recordAdminAction(tx, admin, meta, {
      action: on ? "template.hold_new_organisations" : "template.release_new_organisations",
      targetType: "platform_setting",
      targetId: SETTING.key,
      reason,
      before: { holdNewOrganisations: before },
      after: { holdNewOrganisations: on },
    });
    return true;
  });
}
