import type { Route } from "./+types/settlement-statement";
import { requireDeclaredResource } from "~/.server/domains/auth/guards";
import { statementPdf } from "~/.server/domains/revenue-share/statement";
import type { PermissionHandle } from "~/lib/permissions";
import { getLocale } from "~/paraglide/runtime";

// Any signed-in member reaches the loader, which answers 404 to all but a platform administrator and
// the partner organisation's owner and admins: a settlement's existence is not told to anyone else.
export const handle: PermissionHandle = { permission: "signed-in" };

/** GET /revenue-share/settlements/<id>/statement: a settlement's statement as an A4 PDF. Not one's own: 404. */
export async function loader(args: Route.LoaderArgs) {
  const current = await requireDeclaredResource(args);
  const statement = await statementPdf(args.params.id, getLocale(), { role: current.role, organizationId: current.organization.id });
  if (!statement) throw new Response("Not Found", { status: 404 });
  return new Response(Buffer.from(statement.pdf), {
    headers: {
      "Content-Type": "application/pdf",
      "Content-Disposition": `attachment; filename="${statement.filename}"`,
      "Cache-Control": "private, no-store",
      "X-Content-Type-Options": "nosniff",
    },
  });
}
