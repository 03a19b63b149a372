import { randomUUID } from "node:crypto";
import { redirect } from "react-router";
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

/** Redirects and shows a toast on the page that follows (works without JavaScript). */
export async function redirectWithToast(to: string, type: Toast["type"], message: string, init: { headers?: HeadersInit } = {}) {
  const headers = new Headers(init.headers);
  headers.append("Set-Cookie", await toastCookie(type, message));
  return redirect(to, { headers });
}

/** Reads the pending toast and clears it. */
export async function takeToast(request: Request) {
  const value = (await signedCookies().toast.parse(request.headers.get("cookie"))) as Toast | null;
  if (!value) return { toast: null, headers: undefined };
  return { toast: value, headers: { "Set-Cookie": await signedCookies().toast.serialize("", { maxAge: 0 }) } };
}
