import { can, qrSvg, type CurrentUser } from "../auth";
import { platformScope } from "../../infrastructure/db/scope";
import { env } from "../../infrastructure/config/env";
import { ownProgramme, programmeOverview } from "./read";
import { referralReviews } from "./self-referral";
import { m } from "~/paraglide/messages";

/**
 * What the Revenue Share page shows a member (decision 088): the console's money staff (owners and
 * finance; issue 74) the programme's administration; a partner organisation its own programme, its
 * referral link and (once approved) the link's QR code; anyone else the programme and its application.
 */
export async function revenueSharePage(current: CurrentUser) {
  if (can(current.role, "platform:money")) {
    const scope = platformScope(current);
    const [overview, reviews] = await Promise.all([programmeOverview(scope), referralReviews(scope)]);
    return { view: "admin" as const, overview, reviews };
  }
  const own = await ownProgramme(current.organization.id);
  if (!own) return { view: "apply" as const, canApply: can(current.role, "billing:manage"), organisationName: current.organization.name };
  const link = `${env().APP_URL.replace(/\/+$/, "")}/signup?ref=${own.code}`;
  return { view: "partner" as const, own, link, qr: own.status === "pending" ? null : qrSvg(link, m.revenue_qr_label()) };
}
