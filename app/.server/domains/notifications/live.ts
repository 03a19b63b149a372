import { listenChannel } from "../../infrastructure/db/client";
import { NOTIFICATION_CHANNEL } from "./notify";

/**
 * Calls `onChange` whenever the member's notifications change on any instance (one written, one
 * read): notify() and the read marks send pg_notify with the member's id, heard here by this
 * process's LISTEN (decision 031). Also called after the listening connection was lost and is back,
 * since what was sent meanwhile is gone. Answers the unsubscribe.
 */
export function watchNotifications(userId: string, onChange: () => void) {
  return listenChannel(NOTIFICATION_CHANNEL, {
    onMessage: (payload) => {
      if (payload === userId) onChange();
    },
    onResync: onChange,
  });
}
