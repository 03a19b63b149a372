import type { Route } from "./+types/ad-picture";
import { requireDeclaredResource } from "~/.server/domains/auth/guards";
import { adPictureFile } from "~/.server/domains/ads";
import { fileNotFound, storedFileResponse } from "~/.server/infrastructure/http/file-response";
import { methodNotAllowed } from "~/.server/infrastructure/http/json";
import type { PermissionHandle } from "~/lib/permissions";
import { m } from "~/paraglide/messages";

export const handle: PermissionHandle = { permission: "inbox:view" };

/**
 * GET /chat/ads/:id/picture: the picture of the Click-to-WhatsApp ad a customer came from (:id is the
 * ad referral's id), as Jumbe fetched it from Meta's CDN, for anyone who may read the inbox. Another
 * tenant's, one without a picture and a malformed id are all 404.
 */
export async function loader(args: Route.LoaderArgs) {
  const current = await requireDeclaredResource(args);
  const file = await adPictureFile(current.organization.id, args.params.id);
  if (!file) return fileNotFound(m.inbox_media_no_file());
  return storedFileResponse(args.request, file, `ad-${args.params.id.slice(0, 8)}`);
}

export function action() {
  return methodNotAllowed("GET");
}
