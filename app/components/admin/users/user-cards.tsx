import type { ReactNode } from "react";
import { Link } from "~/components/ui/link";
import type { TenantDetail, tenantActivity } from "~/.server/domains/admin/users/detail";
import { Card, CardBody, CardHeader } from "~/components/ui/card";
import { Name } from "~/components/ui/name";
import { ProgressBar } from "~/components/ui/progress-bar";
import { auditActionLabel, describeChange } from "~/lib/admin-audit";
import { formatDay, formatNumber, formatWhen } from "~/lib/dates";
import { formatKes } from "~/lib/invoice";
import { m } from "~/paraglide/messages";

type TenantActivity = Awaited<ReturnType<typeof tenantActivity>>;

/** A member's role in words (the glossary's), in the request's language. */
function roleWords(role: string) {
  switch (role) {
    case "owner":
      return m.admin_role_owner();
    case "admin":
      return m.admin_role_admin();
    case "agent":
      return m.admin_role_agent();
    case "viewer":
      return m.admin_role_viewer();
    default:
      return role;
  }
}

/** The organisation's details, this month's usage and money, and its members. */
export function TenantOverview({
  tenant,
  members,
  messagesUsed,
  wallet,
  revenueCents,
}: { tenant: TenantDetail } & Pick<TenantActivity, "members" | "messagesUsed" | "wallet" | "revenueCents">) {
  return (
    <div className="grid gap-6 lg:grid-cols-3">
      <Card aria-labelledby="details">
        <CardHeader id="details" title={m.admin_user_details()} />
        <CardBody>
          <dl className="space-y-2 text-sm">
            <Detail
              label={m.admin_role_owner()}
              value={tenant.owner ? <Name>{`${tenant.owner.firstName} ${tenant.owner.lastName}`}</Name> : m.admin_no_owner()}
            />
            <Detail label={m.admin_email()} value={tenant.owner?.email ?? "—"} />
            <Detail label={m.admin_phone()} value={tenant.owner?.phoneNumber ?? "—"} />
            <Detail label={m.admin_user_whatsapp_number()} value={tenant.whatsappNumber ?? m.admin_user_not_connected()} />
            <Detail label={m.admin_column_joined()} value={formatDay(tenant.joinDate)} />
            {tenant.closing ? <Detail label={m.admin_user_closing()} value={m.admin_user_closing_value()} /> : null}
          </dl>
        </CardBody>
      </Card>
      <Card aria-labelledby="usage">
        <CardHeader id="usage" title={m.admin_user_usage_title()} />
        <CardBody className="space-y-4">
          <ProgressBar
            label={m.admin_users_messages()}
            value={Math.min(messagesUsed, tenant.messageLimit)}
            max={tenant.messageLimit}
            valueText={m.admin_user_usage_of({ used: formatNumber(messagesUsed), limit: formatNumber(tenant.messageLimit) })}
            tone={messagesUsed >= tenant.messageLimit ? "danger" : "brand"}
          />
          <p className="text-sm text-slate-600" data-testid="message-limit-source">
            {tenant.limitOverride
              ? m.admin_user_limit_override({
                  plan: tenant.plan,
                  limit: formatNumber(tenant.planMessageLimit),
                  reason: tenant.limitOverride.reason,
                })
              : m.admin_user_limit_plan({ plan: tenant.plan })}
          </p>
          <dl className="space-y-2 text-sm">
            <Detail label={m.admin_user_wallet_balance()} value={formatKes(wallet.balanceCents)} />
            <Detail label={m.admin_user_held()} value={formatKes(wallet.heldCents)} />
            <Detail label={m.admin_user_revenue_total()} value={formatKes(revenueCents)} />
          </dl>
        </CardBody>
      </Card>
      <Card aria-labelledby="members">
        <CardHeader id="members" title={m.admin_user_members({ count: formatNumber(members.length) })} />
        <CardBody>
          <ul className="divide-y divide-slate-100 text-sm">
            {members.map((member) => (
              <li key={member.id} className="py-2">
                <span className="font-medium text-slate-900">
                  <Name>{member.name}</Name>
                </span>{" "}
                · {roleWords(member.role)}
                <span className="block text-slate-600 wrap-anywhere">{member.email}</span>
                <span className="block text-xs text-slate-500">
                  {member.lastSignIn
                    ? m.admin_user_last_signed_in({ when: formatWhen(member.lastSignIn) })
                    : m.admin_user_never_signed_in()}
                </span>
              </li>
            ))}
          </ul>
        </CardBody>
      </Card>
    </div>
  );
}

/** The organisation's own recent activity and the administrators' records about it. */
export function TenantRecords({
  tenant,
  activity,
  audit,
  moreAudit,
}: { tenant: TenantDetail } & Pick<TenantActivity, "activity" | "audit" | "moreAudit">) {
  return (
    <div className="grid gap-6 lg:grid-cols-2">
      <Card aria-labelledby="activity">
        <CardHeader id="activity" title={m.admin_recent_activity()} />
        <CardBody>
          {activity.length ? (
            <ul className="divide-y divide-slate-100 text-sm">
              {activity.map((a) => (
                <li key={a.id} className="py-2">
                  <span className="font-medium text-slate-900">{a.action}</span>{" "}
                  <span className="text-xs text-slate-500">
                    <time dateTime={a.createdAt}>{formatWhen(a.createdAt)}</time>
                  </span>
                  {a.details ? <span className="block text-slate-600 wrap-anywhere">{a.details}</span> : null}
                </li>
              ))}
            </ul>
          ) : (
            <p className="text-sm text-slate-600">{m.admin_no_activity()}</p>
          )}
        </CardBody>
      </Card>
      <Card aria-labelledby="admin-records">
        <CardHeader
          id="admin-records"
          title={m.admin_audit_caption()}
          actions={
            <Link to={`/admin/audit?org=${tenant.id}`} className="text-sm font-medium text-brand-700 underline">
              {moreAudit ? m.admin_user_audit_all() : m.admin_user_audit_open()}
            </Link>
          }
        />
        <CardBody>
          {audit.length ? (
            <ul className="divide-y divide-slate-100 text-sm">
              {audit.map((r) => (
                <li key={r.id} className="py-2">
                  <span className="font-medium text-slate-900">{auditActionLabel(r.action)}</span>{" "}
                  <span className="text-xs text-slate-500">
                    {m.admin_user_audit_by({ email: r.adminEmail })} <time dateTime={r.createdAt}>{formatWhen(r.createdAt)}</time>
                  </span>
                  {r.reason ? <span className="block text-slate-600">{m.admin_reason_is({ reason: r.reason })}</span> : null}
                  <span className="block text-xs text-slate-500">{describeChange(r.before, r.after)}</span>
                </li>
              ))}
            </ul>
          ) : (
            <p className="text-sm text-slate-600">{m.admin_user_audit_none()}</p>
          )}
        </CardBody>
      </Card>
    </div>
  );
}

function Detail({ label, value }: { label: string; value: ReactNode }) {
  return (
    <div className="flex justify-between gap-3">
      <dt className="text-slate-600">{label}</dt>
      <dd className="min-w-0 text-right font-medium text-slate-900 wrap-anywhere">{value}</dd>
    </div>
  );
}
