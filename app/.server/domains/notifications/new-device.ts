import type { RequestMeta } from "../../infrastructure/http/request-meta";
import { deviceOf } from "../../infrastructure/http/user-agent";
import { sha256 } from "../../infrastructure/security/crypto";
import { formatWhen } from "~/lib/dates";
import { notify, type NotifyOutcome } from "./notify";
import type { Executor } from "../../infrastructure/db/client";

/**
 * A sign-in from a browser that is not a known device of the account (decision 013: no valid
 * device cookie for this user): the member themself is told, in the bell always and by e-mail as
 * the organisation's rule for the event says (by default every role). A known device tells nobody.
 * The sign-in calls this once the session is open; a second call for the same sign-in (the same
 * browser and address within the minute) notifies nobody again.
 */
export async function notifyNewDeviceSignIn(
  input: { user: { id: string }; organizationId: string; meta: RequestMeta; knownDevice: boolean; at?: Date },
  executor?: Executor,
): Promise<NotifyOutcome | null> {
  if (input.knownDevice) return null;
  const at = input.at ?? new Date();
  const device = deviceOf(input.meta.userAgent);
  const minute = Math.floor(at.getTime() / 60_000);
  return notify(
    {
      organizationId: input.organizationId,
      event: "new_device_sign_in",
      title: `New sign-in from ${device}`,
      body: `Your account was signed in to from a new device: ${device}, IP address ${input.meta.ip || "unknown"}, ${formatWhen(at)}. If this was not you, change your password and sign out of the sessions you do not know.`,
      link: "/settings/security",
      dedupeKey: `new-device:${sha256(`${input.meta.userAgent}|${input.meta.ip}`).slice(0, 24)}:${minute}`,
      userIds: [input.user.id],
      roles: [],
    },
    executor,
  );
}
