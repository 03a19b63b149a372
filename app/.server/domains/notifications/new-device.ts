import type { RequestMeta } from "../../infrastructure/http/request-meta";
import { deviceOf } from "../../infrastructure/http/user-agent";
import { sha256 } from "../../infrastructure/security/crypto";
import { notify, type NotifyOutcome } from "./notify";
import { words, type Said } from "../../infrastructure/words/said";
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
  const device = deviceWords(input.meta.userAgent);
  const minute = Math.floor(at.getTime() / 60_000);
  return notify(
    {
      organizationId: input.organizationId,
      event: "new_device_sign_in",
      words: {
        title: words("app_notice_new_device_title", { device }),
        // The moment stays a moment: written in the reader's language and the display zone when shown.
        body: words("app_notice_new_device_body", {
          device,
          ip: input.meta.ip || words("app_notice_unknown_ip"),
          when: { at: at.toISOString() },
        }),
      },
      link: "/settings/security",
      dedupeKey: `new-device:${sha256(`${input.meta.userAgent}|${input.meta.ip}`).slice(0, 24)}:${minute}`,
      userIds: [input.user.id],
      roles: [],
    },
    executor,
  );
}

// The names deviceOf gives browsers and systems (user-agent.ts): product names, the same in every language.
const BROWSER_ON_SYSTEM = /^(Edge|Opera|Samsung Internet|Firefox|Chrome|Safari) on (Android|iOS|Windows|macOS|ChromeOS|Linux)$/;

/**
 * The same few words as messages, for words kept to be said later in their reader's language (a
 * new sign-in's notification): what deviceOf could not name is kept as it gave it.
 */
export function deviceWords(userAgent: string | null | undefined): Said {
  if (!userAgent) return words("validation_auth_device_unknown");
  const device = deviceOf(userAgent);
  const parts = BROWSER_ON_SYSTEM.exec(device);
  return parts ? words("validation_auth_device_on", { browser: parts[1]!, system: parts[2]! }) : device;
}
