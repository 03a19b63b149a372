export { bellPage, bellSummary, readCursor, UNREAD_CAP, type BellEvent, type BellKind } from "./events";
export { markBellRead } from "./seen";

/** Where "Mark all as read" returns: a console page the form came from, else the notifications page. */
export function bellReturnPath(raw: FormDataEntryValue | null) {
  const path = typeof raw === "string" ? raw : "";
  return /^\/admin(\/[^\s\\]*)?(\?[^\s\\]*)?$/.test(path) && !path.startsWith("//") ? path : "/admin/notifications";
}
