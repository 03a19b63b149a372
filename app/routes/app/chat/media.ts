import type { Route } from "./+types/media";
import { requireDeclaredResource } from "~/.server/domains/auth/guards";
import { fileNotFound, storedFileResponse } from "~/.server/infrastructure/http/file-response";
import { methodNotAllowed } from "~/.server/infrastructure/http/json";
import { messageFile } from "~/.server/domains/inbox/media";
import type { PermissionHandle } from "~/lib/permissions";
import { m } from "~/paraglide/messages";

export const handle: PermissionHandle = { permission: "inbox:view" };

/**
 * GET /chat/media/:id: the file of a message (:id is the message's id) for anyone who may read the
 * inbox: a customer's photo, voice note or document, or the upload Jumbe sent. Another tenant's
 * message, one without a file and a malformed id are all 404.
 */
export async function loader(args: Route.LoaderArgs) {
  const current = await requireDeclaredResource(args);
  const file = await messageFile(current.organization.id, args.params.id);
  if (!file) return fileNotFound(m.inbox_media_no_file());
  return storedFileResponse(args.request, file, `whatsapp-${args.params.id.slice(0, 8)}`);
}

export function action() {
  return methodNotAllowed("GET");
}
