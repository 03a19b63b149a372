import { Readable } from "node:stream";
import type { Route } from "./+types/rejected";
import { requireDeclaredResource } from "~/.server/domains/auth/guards";
import { openRejectedRows } from "~/.server/domains/contacts/import";
import { methodNotAllowed } from "~/.server/infrastructure/http/json";
import { refusalOf } from "~/.server/infrastructure/http/refusal-reply";
import type { PermissionHandle } from "~/lib/permissions";
import { m } from "~/paraglide/messages";

export const handle: PermissionHandle = { permission: "contacts:manage" };

/** GET /messaging/contacts/import/:id/rejected.csv: an import's rejected rows with their reasons. Another tenant's id is 404. */
export async function loader(args: Route.LoaderArgs) {
  const current = await requireDeclaredResource(args);
  try {
    const { stream, fileName } = await openRejectedRows(current.organization.id, args.params.id);
    return new Response(Readable.toWeb(stream) as ReadableStream<Uint8Array>, {
      headers: {
        "Content-Type": "text/csv; charset=utf-8",
        "Content-Disposition": `attachment; filename="${fileName.replace(/[^\w.-]+/g, "_")}"`,
        "Cache-Control": "no-store",
        "X-Content-Type-Options": "nosniff",
      },
    });
  } catch (error) {
    if (refusalOf(error).status === 404)
      return new Response(m.messaging_import_no_rejected(), {
        status: 404,
        headers: { "Content-Type": "text/plain; charset=utf-8", "Cache-Control": "no-store" },
      });
    throw error;
  }
}

export function action() {
  return methodNotAllowed("GET");
}
