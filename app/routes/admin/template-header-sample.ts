import type { Route } from "./+types/template-header-sample";
import { requireDeclaredStaff } from "~/.server/domains/auth/guards";
import { platformScope } from "~/.server/infrastructure/db/scope";
import { findReviewedTemplate } from "~/.server/domains/admin/templates/queries";
import { sampleFileResponse, templateSampleFile } from "~/.server/domains/templates/media";

/**
 * GET /admin/templates/:id/header-sample: the media header sample of any tenant's template, for the
 * review page. 404 to anyone but a platform administrator, and for a template without a sample.
 */
export async function loader(args: Route.LoaderArgs) {
  const current = await requireDeclaredStaff(args);
  const reviewed = await findReviewedTemplate(platformScope(current), args.params.id);
  return sampleFileResponse(reviewed ? await templateSampleFile(reviewed.organizationId, reviewed.id) : undefined);
}
