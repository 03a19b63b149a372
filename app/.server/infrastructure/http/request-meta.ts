import { requestInfoOf } from "./context";

export interface RequestMeta {
  ip: string;
  userAgent: string;
}

/** Client IP as Express resolved it (trust proxy honours nginx's X-Forwarded-For), and the user agent. */
export function requestMeta(request: Request, context?: unknown): RequestMeta {
  return {
    ip: requestInfoOf(context).clientIp,
    userAgent: (request.headers.get("user-agent") ?? "").slice(0, 512),
  };
}
