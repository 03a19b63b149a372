import { sql } from "drizzle-orm";
import { db } from "../../infrastructure/db/client";
import type { Organization } from "../../infrastructure/db/schema";
import { recordActivity } from "../activity";
import { englishOf, words, type MessageKey, type Said } from "../../infrastructure/words/said";
import type { RequestMeta } from "../../infrastructure/http/request-meta";
import { can, type Role } from "../auth";
import { refuseOrganisation, ORGANISATION_REFUSALS } from "./refusals";
import { reviewReferralOnKraPin } from "../revenue-share";
import type { OrganisationDetailsInput } from "~/lib/schemas/organisation";
import { INDUSTRIES, type Industry } from "~/lib/kenya";
import type { Locale } from "~/paraglide/runtime";

/** Who acts on the organisation: the signed-in member as the guards resolve them (the organisation as the session read it). */
export interface OrganisationActor {
  user: { id: string };
  organization: Organization;
  role: Role;
}

export interface OrganisationDetails {
  name: string;
  kraPin: string | null;
  postalAddress: string | null;
  county: string | null;
  industry: Industry | null;
  timeZone: string;
  defaultLocale: Locale;
}

/** The details as the page shows them: read with the session, so the page costs no statement of its own. */
export function organisationDetails(organization: Organization): OrganisationDetails {
  return {
    name: organization.name,
    kraPin: organization.kraPin,
    postalAddress: organization.postalAddress,
    county: organization.county,
    industry: organization.industry && Object.hasOwn(INDUSTRIES, organization.industry) ? (organization.industry as Industry) : null,
    timeZone: organization.timeZone,
    defaultLocale: organization.defaultLocale,
  };
}

/** Each field as the activity log names it ("name", "KRA PIN"), in its reader's language. */
const FIELD_WORDS: Record<keyof OrganisationDetails, MessageKey> = {
  name: "app_activity_detail_field_name",
  kraPin: "app_activity_detail_field_kra_pin",
  postalAddress: "app_activity_detail_field_postal_address",
  county: "app_activity_detail_field_county",
  industry: "app_activity_detail_field_industry",
  timeZone: "app_activity_detail_field_time_zone",
  defaultLocale: "app_activity_detail_field_email_language",
};

/** "a, b and c": the last two joined by the language's "and" (activity/stored-details.ts reads it back). */
function fieldList([first, ...rest]: Said[]): Said {
  if (!rest.length) return first!;
  if (rest.length === 1) return words("app_activity_detail_list_and", { first: first!, last: rest[0]! });
  return words("app_activity_detail_list_more", { first: first!, rest: fieldList(rest) });
}

/**
 * Saves the organisation's details (owners and admins). Empty optional fields are cleared. The
 * activity log says which fields changed; an unchanged form writes nothing. Answers the fields changed.
 */
export async function updateOrganisationDetails(actor: OrganisationActor, input: OrganisationDetailsInput, meta?: RequestMeta) {
  if (!can(actor.role, "organization:manage")) throw refuseOrganisation(403, "forbidden", ORGANISATION_REFUSALS.forbidden);
  const next: OrganisationDetails = {
    name: input.name,
    kraPin: input.kraPin || null,
    postalAddress: input.postalAddress || null,
    county: input.county || null,
    industry: (input.industry as Industry | undefined) || null,
    timeZone: input.timeZone,
    defaultLocale: input.defaultLocale ?? actor.organization.defaultLocale,
  };
  const before = organisationDetails(actor.organization);
  const changed = (Object.keys(FIELD_WORDS) as (keyof OrganisationDetails)[]).filter((key) => before[key] !== next[key]);
  if (!changed.length) return changed;
  await db().transaction(async (tx) => {
    await tx.execute(sql`
      update organizations set name = ${next.name}, kra_pin = ${next.kraPin}, postal_address = ${next.postalAddress}, county = ${next.county},
             industry = ${next.industry}, time_zone = ${next.timeZone}, default_locale = ${next.defaultLocale}, updated_at = now()
      where id = ${actor.organization.id}`);
    // A KRA PIN that is the referring partner's own: the referral waits for review (decision 104).
    if (changed.includes("kraPin")) await reviewReferralOnKraPin(tx, actor.organization.id, next.kraPin);
  });
  const fields = fieldList(changed.map((key) => words(FIELD_WORDS[key])));
  await recordActivity({
    organizationId: actor.organization.id,
    userId: actor.user.id,
    type: "settings",
    status: "success",
    action: "Organisation details updated",
    details: englishOf(
      changed.includes("name")
        ? words("app_activity_detail_organisation_changed_renamed", { fields, name: next.name })
        : words("app_activity_detail_organisation_changed", { fields }),
    ),
    meta,
  });
  return changed;
}
