import { randomUUID } from "node:crypto";
import { redirect, redirectDocument } from "react-router";
import { signedCookies } from "./cookies";

export interface Toast {
  id: string;
  type: "success" | "error" | "info";
  message: string;
}

/** A Set-Cookie header carrying a one-time toast to the next page. */
export async function toastCookie(type: Toast["type"], message: string) {
  return signedCookies().toast.serialize({ id: randomUUID(), type, message } satisfies Toast);
}

/** Whether a path's page is sent as a document without React: told by the routes (readRoutes). */
let sentAsDocument: (pathname: string) => boolean = () => false;

export function tellDocumentPages(isDocument: (pathname: string) => boolean) {
  sentAsDocument = isDocument;
}

/**
 * Redirects and shows a toast on the page that follows (works without JavaScript). To a page sent as
 * a document (decision 066) a hydrated form's post goes as a document load at once: were the router
 * to follow the redirect itself, the shell's data it reads again beside it would take the toast.
 */
export async function redirectWithToast(to: string, type: Toast["type"], message: string, init: { headers?: HeadersInit } = {}) {
  const headers = new Headers(init.headers);
  headers.append("Set-Cookie", await toastCookie(type, message));
  const pathname = new URL(to, "http://jumbe.invalid").pathname;
  return (sentAsDocument(pathname) ? redirectDocument : redirect)(to, { headers });
}

/** Reads the pending toast and clears it. */
export async function takeToast(request: Request) {
  const value = (await signedCookies().toast.parse(request.headers.get("cookie"))) as Toast | null;
  if (!value) return { toast: null, headers: undefined };
  return { toast: value, headers: { "Set-Cookie": await signedCookies().toast.serialize("", { maxAge: 0 }) } };
}
