import type { SubmissionResult } from "@conform-to/react";
import * as z from "zod/mini";
import { intent, intentAction, type CurrentUser, type GuardArgs } from "../auth";
import { formFailure } from "../../infrastructure/http/forms";
import { redirectWithToast } from "../../infrastructure/http/toast";
import { requestMeta, type RequestMeta } from "../../infrastructure/http/request-meta";
import { refusalOf, refusalReply } from "../../infrastructure/http/refusal-reply";
import { checkStepUp, STEP_UP_FIELD } from "../admin";
import {
  applyAsPartner,
  approveSettlementPayout,
  assignClient,
  changePartnerStatus,
  editPartner,
  enrolPartner,
  PARTNER_FIELD_NAMES,
  processSettlement,
  rejectApplication,
  unassignClient,
  type PartnerFields,
} from "./programme";
import { decideReferralReview } from "./self-referral";
import { m } from "~/paraglide/messages";

/**
 * The `/revenue-share` pages' forms (decision 088): one action for all of them, by `intent`. The
 * administrator's intents send anyone else to /unauthorized (403) before reading further; an
 * organisation's owner or admin may only apply. Payouts take the step-up. Done: back to the page
 * with a toast (the partner's dialog again after a change to it); refused: the form again with the
 * sentence at its field and a 4xx, nothing changed.
 */

type Values = Record<string, string>;
interface Intent {
  fields: readonly string[];
  admin: boolean;
  destructive?: boolean;
  /** Back to the partner's dialog when done. */
  toPartner?: boolean;
  work: (input: { current: CurrentUser; meta: RequestMeta; values: Values }) => Promise<string>;
}

const partnerFields = (values: Values): PartnerFields =>
  Object.fromEntries(PARTNER_FIELD_NAMES.map((name) => [name, values[name] ?? ""])) as PartnerFields;

const INTENTS: Record<string, Intent> = {
  enrol: {
    fields: ["organization", ...PARTNER_FIELD_NAMES],
    admin: true,
    work: async ({ current, meta, values }) => {
      const done = await enrolPartner(current, meta, { ...partnerFields(values), organization: values.organization ?? "" });
      return m.revenue_toast_enrolled({ name: done.name, code: done.code });
    },
  },
  edit: {
    fields: ["partner", ...PARTNER_FIELD_NAMES],
    admin: true,
    toPartner: true,
    work: async ({ current, meta, values }) => {
      const done = await editPartner(current, meta, values.partner ?? "", partnerFields(values));
      return done.shareChanged ? m.revenue_toast_share_changed({ name: done.name }) : m.revenue_toast_edited({ name: done.name });
    },
  },
  approve: {
    fields: ["partner"],
    admin: true,
    toPartner: true,
    work: async ({ current, meta, values }) =>
      m.revenue_toast_approved({ name: (await changePartnerStatus(current, meta, values.partner ?? "", "approve", "")).name }),
  },
  reject: {
    fields: ["partner", "reason"],
    admin: true,
    work: async ({ current, meta, values }) =>
      m.revenue_toast_rejected({ name: (await rejectApplication(current, meta, values.partner ?? "", values.reason ?? "")).name }),
  },
  suspend: {
    fields: ["partner", "reason"],
    admin: true,
    toPartner: true,
    work: async ({ current, meta, values }) =>
      m.revenue_toast_suspended({
        name: (await changePartnerStatus(current, meta, values.partner ?? "", "suspend", values.reason ?? "")).name,
      }),
  },
  reactivate: {
    fields: ["partner", "reason"],
    admin: true,
    toPartner: true,
    work: async ({ current, meta, values }) =>
      m.revenue_toast_reactivated({
        name: (await changePartnerStatus(current, meta, values.partner ?? "", "reactivate", values.reason ?? "")).name,
      }),
  },
  assign: {
    fields: ["partner", "organization", "reason"],
    admin: true,
    toPartner: true,
    work: async ({ current, meta, values }) => {
      const done = await assignClient(current, meta, values.partner ?? "", values.organization ?? "", values.reason ?? "");
      return done.from
        ? m.revenue_toast_moved({ client: done.client, from: done.from, partner: done.partner })
        : m.revenue_toast_assigned(done);
    },
  },
  unassign: {
    fields: ["partner", "client", "reason"],
    admin: true,
    toPartner: true,
    work: async ({ current, meta, values }) => {
      const done = await unassignClient(current, meta, values.partner ?? "", values.client ?? "", values.reason ?? "");
      return m.revenue_toast_unassigned(done);
    },
  },
  settle: {
    fields: ["settlement", "reference"],
    admin: true,
    destructive: true,
    work: async ({ current, meta, values }) => {
      const done = await processSettlement(current, meta, values.settlement ?? "", { reference: values.reference ?? "" });
      if (done.method === "bank") return m.revenue_toast_paid_bank();
      return done.waiting ? m.revenue_toast_payout_waiting() : m.revenue_toast_payout_sent();
    },
  },
  "approve-payout": {
    fields: ["settlement"],
    admin: true,
    destructive: true,
    work: async ({ current, meta, values }) => {
      await approveSettlementPayout(current, meta, values.settlement ?? "");
      return m.revenue_toast_payout_approved();
    },
  },
  "approve-referral": {
    fields: ["review", "reason"],
    admin: true,
    work: async ({ current, meta, values }) =>
      m.revenue_toast_referral_approved(await decideReferralReview(current, meta, values.review ?? "", "approve", values.reason ?? "")),
  },
  "reject-referral": {
    fields: ["review", "reason"],
    admin: true,
    work: async ({ current, meta, values }) =>
      m.revenue_toast_referral_rejected(await decideReferralReview(current, meta, values.review ?? "", "reject", values.reason ?? "")),
  },
  apply: {
    fields: PARTNER_FIELD_NAMES.filter((name) => !["share", "shareOther", "reason", "code"].includes(name)),
    admin: false,
    work: async ({ current, values }) => {
      const done = await applyAsPartner(
        { organizationId: current.organization.id, userId: current.user.id, role: current.role },
        partnerFields(values),
      );
      return m.revenue_toast_applied({ code: done.code });
    },
  },
};

const text = z.optional(z.string());
const schemaOf = (fields: readonly string[]) =>
  z.object({ intent: text, [STEP_UP_FIELD]: text, ...Object.fromEntries(fields.map((name) => [name, text])) });
const HIDDEN = [STEP_UP_FIELD];

const refused = (intent: string, status: number, result: SubmissionResult<string[]>) => formFailure(result, status, undefined, { intent });

/** Where a done form goes: the page it was on, its dialog closed (or the partner's own dialog again). */
function backTo(url: URL, intent: Intent, partner: string | undefined) {
  const next = new URLSearchParams(url.searchParams);
  next.delete("dialog");
  next.delete("settlement");
  if (intent.toPartner && partner) {
    next.set("dialog", "partner");
    next.set("partner", partner);
  } else next.delete("partner");
  const query = next.toString();
  return `${url.pathname}${query ? `?${query}` : ""}`;
}

/** One intent of the pages on the form protocol (decision 119): its schema, its permission, the step-up, its work and where it goes. */
function pageIntent(chosen: Intent, args: GuardArgs & { request: Request; url: URL }) {
  return intent(
    schemaOf(chosen.fields),
    async ({ value, submission, form, user, intent: name }) => {
      if (chosen.destructive) {
        const check = await checkStepUp(user, form);
        if (!check.ok)
          return refused(name, check.status, submission.reply({ fieldErrors: { [STEP_UP_FIELD]: [check.message] }, hideFields: HIDDEN }));
      }
      const posted = value as Record<string, unknown>;
      const values = Object.fromEntries(chosen.fields.map((field) => [field, typeof posted[field] === "string" ? posted[field] : ""]));
      try {
        const message = await chosen.work({ current: user, meta: requestMeta(args.request, args.context), values });
        return redirectWithToast(backTo(args.url, chosen, values.partner), "success", message);
      } catch (error) {
        const refusal = refusalOf(error);
        return refusalReply(submission, refusal, { hideFields: HIDDEN, toast: !refusal.field, extra: { intent: name } });
      }
    },
    // The administrator's tabs declare platform:money (the console's owners and finance staff, issue 74),
    // which their routes' middleware checks before this; every intent but the application is theirs besides:
    // from anyone else, refused as the permission table refuses a page (403) before the form is read further.
    { permission: chosen.admin ? ["billing:view", "platform:money"] : "billing:view", reply: { hideFields: HIDDEN } },
  );
}

export function revenueShareAction(args: GuardArgs & { request: Request; url: URL }) {
  return intentAction(args, {
    permission: "billing:view",
    intents: Object.fromEntries(Object.entries(INTENTS).map(([name, chosen]) => [name, pageIntent(chosen, args)])),
    // An intent no form sends: said above the forms.
    unknown: intent(schemaOf([]), ({ submission }) => unknownIntent(submission), { invalid: unknownIntent }),
  });
}

const unknownIntent = (submission: { reply: (options: { formErrors: string[]; hideFields: string[] }) => SubmissionResult<string[]> }) =>
  refused("", 400, submission.reply({ formErrors: [m.revenue_unknown_action()], hideFields: HIDDEN }));
