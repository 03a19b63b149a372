import type { RequestMeta } from "../../infrastructure/http/request-meta";

/** Who starts, changes or stops a campaign: a member, or an API key (no member). */
export interface Actor {
  organizationId: string;
  userId?: string | null;
  /** A campaign made through the API: the key the request was made with (maker-checker, decision 045). */
  apiKeyId?: string | null;
  meta?: RequestMeta;
}
