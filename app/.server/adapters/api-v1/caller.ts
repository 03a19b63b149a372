import type { RequestMeta } from "../../infrastructure/http/request-meta";

/**
 * The API key a request was made with and where it came from, for an activity row the endpoint
 * writes (decision 155): the key's prefix (safe to show: never its secret) and the caller's address
 * as Express resolved it, with the user agent.
 */
export interface ApiCaller {
  keyPrefix: string;
  meta: RequestMeta;
}
