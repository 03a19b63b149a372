import { requestInfoOf } from "./context";

export interface RequestMeta {
  ip: string;
  userAgent: string;
}

/** Longest user agent kept with a row. */
const USER_AGENT_MAX = 512;

/** The caller's address and user agent as a row keeps them. */
export function callerMeta(ip: string | undefined, userAgent: string | null | undefined): RequestMeta {
  return { ip: ip || "127.0.0.1", userAgent: (userAgent ?? "").slice(0, USER_AGENT_MAX) };
}

/** Client IP as Express resolved it (trust proxy honours nginx's X-Forwarded-For), and the user agent. */
export function requestMeta(request: Request, context?: unknown): RequestMeta {
  return callerMeta(requestInfoOf(context).clientIp, request.headers.get("user-agent"));
}
