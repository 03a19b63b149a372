import type { Route } from "./+types/sample";
import { requireUserWithPermission } from "~/.server/auth/guards";
import { isUuid } from "~/.server/templates/queries";
import { templateSampleFile } from "~/.server/templates/media";

/**
 * GET /templates/:id/sample: a template's media header sample, for the preview's image. The
 * tenant's own templates only (another's id is 404, like an unknown one), for anyone who may see
 * templates; private caching, since the bytes belong to one tenant.
 */
export async function loader(args: Route.LoaderArgs) {
  const current = await requireUserWithPermission(args, "templates:view");
  const sample = isUuid(args.params.id) ? await templateSampleFile(current.organization.id, args.params.id) : undefined;
  if (!sample)
    return new Response("Sample not found.", {
      status: 404,
      headers: { "Content-Type": "text/plain; charset=utf-8", "Cache-Control": "no-store" },
    });
  const name = sample.fileName.replace(/[^\w.-]+/g, "_");
  return new Response(new Uint8Array(sample.bytes), {
    headers: {
      "Content-Type": sample.contentType,
      "Content-Length": String(sample.bytes.length),
      "Cache-Control": "private, max-age=300",
      "Content-Disposition": `inline; filename="${name}"`,
      "X-Content-Type-Options": "nosniff",
      // A PDF or video opened on its own runs nothing of the page's.
      "Content-Security-Policy": "default-src 'none'; sandbox",
    },
  });
}
