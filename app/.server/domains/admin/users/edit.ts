import * as z from "zod/mini";
import { sql } from "drizzle-orm";
import { db } from "../../../infrastructure/db/client";
import { queryRows } from "../../../infrastructure/db/query";
import type { CurrentUser } from "../../auth/guards";
import type { RequestMeta } from "../../../infrastructure/http/request-meta";
import { recordAdminAction } from "../audit";
import { normalizePhone } from "~/lib/phone";
import { refuseTenant } from "./suspension";
import { isTenant } from "./tenants";
import { REASON_MAX, USER_PLANS } from "~/lib/admin-users";
import { withoutBidiControls } from "~/lib/names";
import { Refusal } from "../../../infrastructure/refusal";

export const MESSAGE_LIMIT_MAX = 10_000_000;

const name = (label: string) =>
  z.string({ error: `${label} is required.` }).check(
    z.overwrite((v) => withoutBidiControls(v).replace(/\s+/g, " ").trim()),
    z.minLength(1, { error: `${label} is required.`, abort: true }),
    z.maxLength(60, `Keep the ${label.toLowerCase()} to 60 characters.`),
  );

/**
 * Edit User: the plan, pending or active, and the owner's contact details. The monthly message limit
 * follows the plan's price list; an override of it (limitOverride) needs its reason (decision 051).
 */
export const EditTenantSchema = z
  .object({
    plan: z.enum(USER_PLANS, { error: "Choose Starter, Growth or Enterprise." }),
    limitOverride: z.optional(
      z.string().check(
        z.overwrite((v) => v.replace(/[\s,]/g, "")),
        z.refine((v) => v === "" || /^\d{1,8}$/.test(v), { error: "Give the message limit as a whole number of messages.", abort: true }),
        z.refine(
          (v) => v === "" || (Number(v) >= 1 && Number(v) <= MESSAGE_LIMIT_MAX),
          `The message limit is from 1 to ${MESSAGE_LIMIT_MAX.toLocaleString("en-KE")}.`,
        ),
      ),
    ),
    overrideReason: z.optional(
      z.string().check(
        z.overwrite((v) => withoutBidiControls(v).replace(/\s+/g, " ").trim()),
        z.maxLength(REASON_MAX, `Keep the reason to ${REASON_MAX} characters.`),
      ),
    ),
    status: z.optional(z.enum(["pending", "active"], { error: "Choose pending or active (suspend with Suspend User)." })),
    firstName: name("First name"),
    lastName: name("Last name"),
    email: z.string({ error: "The e-mail address is required." }).check(
      z.overwrite((v) => v.trim().toLowerCase()),
      z.minLength(1, { error: "The e-mail address is required.", abort: true }),
      z.maxLength(254, "An e-mail address has at most 254 characters."),
      z.regex(/^[^\s@]+@[^\s@]+\.[^\s@]+$/, "Enter an e-mail address like name@example.co.ke."),
    ),
    phone: z.optional(
      z.string().check(
        z.overwrite((v) => v.trim()),
        z.refine((v) => !v || normalizePhone(v) !== null, "Enter a phone number like 0712 345 678 or +254 712 345 678."),
      ),
    ),
  })
  .check(
    z.refine((v) => !v.limitOverride || !!v.overrideReason, {
      error: "Give the reason for overriding the plan's message limit, or leave the limit empty to follow the plan.",
      path: ["overrideReason"],
    }),
  );
export type EditTenantInput = z.output<typeof EditTenantSchema>;

/** Suspend User and Reactivate: the reason, required. */
export const ReasonSchema = z.object({
  reason: z.string({ error: "Give the reason." }).check(
    z.overwrite((v) => v.replace(/\s+/g, " ").trim()),
    z.minLength(1, { error: "Give the reason.", abort: true }),
    z.maxLength(REASON_MAX, `Keep the reason to ${REASON_MAX} characters.`),
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
    if (!row) throw refuseTenant(404, "Not Found");
    if (row.status === "suspended" && input.status)
      throw refuseEdit("status", "This organisation is suspended: reactivate it with Reactivate, giving the reason.");
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
      if (taken.length) throw refuseEdit("email", "Another account already uses this e-mail address.");
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
