import type { Route } from "./+types/sample";
import { requireDeclaredResource } from "~/.server/domains/auth/guards";
import { isUuid } from "~/.server/domains/templates/queries";
import { sampleFileResponse, templateSampleFile } from "~/.server/domains/templates/media";
import type { PermissionHandle } from "~/lib/permissions";

export const handle: PermissionHandle = { permission: "templates:view" };

/**
 * GET /templates/:id/sample: a template's media header sample, for the preview's image. The
 * tenant's own templates only (another's id is 404, like an unknown one), for anyone who may see
 * templates.
 */
export async function loader(args: Route.LoaderArgs) {
  const current = await requireDeclaredResource(args);
  const sample = isUuid(args.params.id) ? await templateSampleFile(current.organization.id, args.params.id) : undefined;
  return sampleFileResponse(sample);
}
