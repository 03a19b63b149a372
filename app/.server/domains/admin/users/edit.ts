import * as z from "zod/mini";
import { sql } from "drizzle-orm";
import { db } from "../../../infrastructure/db/client";
import { queryRows } from "../../../infrastructure/db/query";
import type { CurrentUser } from "../../auth";
import type { RequestMeta } from "../../../infrastructure/http/request-meta";
import { recordAdminAction } from "../audit";
import { normalizePhone } from "~/lib/phone";
import { refuseTenant, TENANT_NOT_FOUND } from "./suspension";
import { isTenant } from "./tenants";
import { REASON_MAX, USER_PLANS } from "~/lib/admin-users";
import { withoutBidiControls } from "~/lib/names";
import { Refusal } from "../../../infrastructure/refusal";
import { formatNumber } from "~/lib/dates";
import { m } from "~/paraglide/messages";

export const MESSAGE_LIMIT_MAX = 10_000_000;

// Every message is a function: the schema is made once, its words are read in each request's language.
const name = (words: { required: () => string; tooLong: () => string }) =>
  z.string({ error: words.required }).check(
    z.overwrite((v) => withoutBidiControls(v).replace(/\s+/g, " ").trim()),
    z.minLength(1, { error: words.required, abort: true }),
    z.maxLength(60, { error: words.tooLong }),
  );

/**
 * Edit User: the plan, pending or active, and the owner's contact details. The monthly message limit
 * follows the plan's price list; an override of it (limitOverride) needs its reason (decision 051).
 */
export const EditTenantSchema = z
  .object({
    plan: z.enum(USER_PLANS, { error: () => m.admin_edit_plan_choose() }),
    limitOverride: z.optional(
      z.string().check(
        z.overwrite((v) => v.replace(/[\s,]/g, "")),
        z.refine((v) => v === "" || /^\d{1,8}$/.test(v), { error: () => m.admin_edit_limit_whole(), abort: true }),
        z.refine((v) => v === "" || (Number(v) >= 1 && Number(v) <= MESSAGE_LIMIT_MAX), {
          error: () => m.admin_edit_limit_range({ max: formatNumber(MESSAGE_LIMIT_MAX) }),
        }),
      ),
    ),
    overrideReason: z.optional(
      z.string().check(
        z.overwrite((v) => withoutBidiControls(v).replace(/\s+/g, " ").trim()),
        z.maxLength(REASON_MAX, { error: () => m.admin_edit_reason_max({ max: REASON_MAX }) }),
      ),
    ),
    status: z.optional(z.enum(["pending", "active"], { error: () => m.admin_edit_status_choose() })),
    firstName: name({ required: () => m.admin_edit_first_name_required(), tooLong: () => m.admin_edit_first_name_max() }),
    lastName: name({ required: () => m.admin_edit_last_name_required(), tooLong: () => m.admin_edit_last_name_max() }),
    email: z.string({ error: () => m.admin_edit_email_required() }).check(
      z.overwrite((v) => v.trim().toLowerCase()),
      z.minLength(1, { error: () => m.admin_edit_email_required(), abort: true }),
      z.maxLength(254, { error: () => m.admin_edit_email_max() }),
      z.regex(/^[^\s@]+@[^\s@]+\.[^\s@]+$/, { error: () => m.admin_edit_email_format() }),
    ),
    phone: z.optional(
      z.string().check(
        z.overwrite((v) => v.trim()),
        z.refine((v) => !v || normalizePhone(v) !== null, { error: () => m.admin_edit_phone_format() }),
      ),
    ),
  })
  .check(
    z.refine((v) => !v.limitOverride || !!v.overrideReason, {
      error: () => m.admin_edit_override_reason_required(),
      path: ["overrideReason"],
    }),
  );
export type EditTenantInput = z.output<typeof EditTenantSchema>;

/** Suspend User and Reactivate: the reason, required. */
export const ReasonSchema = z.object({
  reason: z.string({ error: () => m.admin_edit_reason_required() }).check(
    z.overwrite((v) => v.replace(/\s+/g, " ").trim()),
    z.minLength(1, { error: () => m.admin_edit_reason_required(), abort: true }),
    z.maxLength(REASON_MAX, { error: () => m.admin_edit_reason_max({ max: REASON_MAX }) }),
  ),
});

/** Edit User refused at one of its fields (the form shows it there). */
const refuseEdit = (field: "status" | "email", message: string) => new Refusal({ domain: "tenant", status: 409, message, field });

/**
 * Saves Edit User in one transaction with its audit record (before and after of what changed), and
 * says whether anything changed. A suspended organisation keeps its status here: Reactivate, with its
 * reason, is how it comes back.
 */
export async function editTenant(admin: CurrentUser, meta: RequestMeta, id: string, input: EditTenantInput): Promise<{ changed: boolean }> {
  return db().transaction(async (tx) => {
    const rows = await queryRows<{
      plan_type: string;
      message_limit_override: number | null;
      message_limit_override_reason: string | null;
      status: string;
      owner_id: string | null;
      first_name: string;
      last_name: string;
      email: string;
      phone_number: string | null;
    }>(
      tx,
      sql`
      select o.id, o.plan_type, o.message_limit_override, o.message_limit_override_reason, o.status, u.id as owner_id, u.first_name, u.last_name, u.email, u.phone_number
      from organizations o left join users u on u.organization_id = o.id and u.org_role = 'owner'
      where o.id = ${id} and ${isTenant()} for update of o`,
    );
    const row = rows[0];
    if (!row) throw refuseTenant(404, TENANT_NOT_FOUND);
    if (row.status === "suspended" && input.status) throw refuseEdit("status", m.admin_edit_suspended_refusal());
    const before = {
      plan: row.plan_type,
      limitOverride: row.message_limit_override === null ? null : Number(row.message_limit_override),
      overrideReason: row.message_limit_override_reason,
      status: row.status,
      ...(row.owner_id ? { ownerName: `${row.first_name} ${row.last_name}`, ownerEmail: row.email, ownerPhone: row.phone_number } : {}),
    };
    const phone = input.phone ? normalizePhone(input.phone) : null;
    // The same address typed in another case is no change.
    const email = row.owner_id && input.email === row.email.toLowerCase() ? row.email : input.email;
    const after = {
      plan: input.plan,
      limitOverride: input.limitOverride ? Number(input.limitOverride) : null,
      overrideReason: input.limitOverride ? input.overrideReason! : null,
      status: row.status === "suspended" ? row.status : (input.status ?? row.status),
      ...(row.owner_id ? { ownerName: `${input.firstName} ${input.lastName}`, ownerEmail: email, ownerPhone: phone } : {}),
    };
    if (row.owner_id && input.email !== row.email.toLowerCase()) {
      const taken = await queryRows<unknown>(
        tx,
        sql`select 1 from users where lower(email) = ${input.email} and id <> ${row.owner_id} limit 1`,
      );
      if (taken.length) throw refuseEdit("email", m.admin_edit_email_taken());
    }
    const changed = JSON.stringify(before) !== JSON.stringify(after);
    if (!changed) return { changed: false };
    await tx.execute(sql`
      update organizations set plan_type = ${after.plan}, message_limit_override = ${after.limitOverride},
             message_limit_override_reason = ${after.overrideReason}, status = ${after.status}, updated_at = now()
      where id = ${id}`);
    if (row.owner_id)
      await tx.execute(sql`
        update users set first_name = ${input.firstName}, last_name = ${input.lastName}, email = ${email}, phone_number = ${phone}
        where id = ${row.owner_id}`);
    await recordAdminAction(tx, admin, meta, {
      action: "organization.edit",
      organizationId: id,
      targetType: "organization",
      targetId: id,
      before,
      after,
    });
    return { changed: true };
  });
}
