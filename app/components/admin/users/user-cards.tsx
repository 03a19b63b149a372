import type { ReactNode } from "react";
import { Link } from "react-router";
import type { TenantDetail, tenantActivity } from "~/.server/domains/admin/users/detail";
import { Card, CardBody, CardHeader } from "~/components/ui/card";
import { Name } from "~/components/ui/name";
import { ProgressBar } from "~/components/ui/progress-bar";
import { auditActionLabel, describeChange } from "~/lib/admin-audit";
import { formatDay, formatNumber, formatWhen } from "~/lib/dates";
import { formatKes } from "~/lib/invoice";

type TenantActivity = Awaited<ReturnType<typeof tenantActivity>>;

const ROLE_WORDS: Record<string, string> = { owner: "Owner", admin: "Admin", agent: "Agent", viewer: "Viewer" };

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
        <CardHeader id="details" title="Details" />
        <CardBody>
          <dl className="space-y-2 text-sm">
            <Detail label="Owner" value={tenant.owner ? <Name>{`${tenant.owner.firstName} ${tenant.owner.lastName}`}</Name> : "No owner"} />
            <Detail label="E-mail" value={tenant.owner?.email ?? "—"} />
            <Detail label="Phone" value={tenant.owner?.phoneNumber ?? "—"} />
            <Detail label="WhatsApp number" value={tenant.whatsappNumber ?? "Not connected"} />
            <Detail label="Joined" value={formatDay(tenant.joinDate)} />
            {tenant.closing ? <Detail label="Closing" value="The owner asked to close it" /> : null}
          </dl>
        </CardBody>
      </Card>
      <Card aria-labelledby="usage">
        <CardHeader id="usage" title="Usage this month" />
        <CardBody className="space-y-4">
          <ProgressBar
            label="Messages"
            value={Math.min(messagesUsed, tenant.messageLimit)}
            max={tenant.messageLimit}
            valueText={`${formatNumber(messagesUsed)} of ${formatNumber(tenant.messageLimit)}`}
            tone={messagesUsed >= tenant.messageLimit ? "danger" : "brand"}
          />
          <p className="text-sm text-slate-600" data-testid="message-limit-source">
            {tenant.limitOverride
              ? `Limit set by an administrator (override of the ${tenant.plan} plan's ${formatNumber(tenant.planMessageLimit)}). Reason: ${tenant.limitOverride.reason}`
              : `The ${tenant.plan} plan's limit.`}
          </p>
          <dl className="space-y-2 text-sm">
            <Detail label="Wallet balance" value={formatKes(wallet.balanceCents)} />
            <Detail label="Held for queued messages" value={formatKes(wallet.heldCents)} />
            <Detail label="Revenue (total paid)" value={formatKes(revenueCents)} />
          </dl>
        </CardBody>
      </Card>
      <Card aria-labelledby="members">
        <CardHeader id="members" title={`Members (${members.length})`} />
        <CardBody>
          <ul className="divide-y divide-slate-100 text-sm">
            {members.map((m) => (
              <li key={m.id} className="py-2">
                <span className="font-medium text-slate-900">
                  <Name>{m.name}</Name>
                </span>{" "}
                · {ROLE_WORDS[m.role] ?? m.role}
                <span className="block text-slate-600">{m.email}</span>
                <span className="block text-xs text-slate-500">
                  {m.lastSignIn ? `Last signed in ${formatWhen(m.lastSignIn)}` : "Never signed in"}
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
        <CardHeader id="activity" title="Recent activity" />
        <CardBody>
          {activity.length ? (
            <ul className="divide-y divide-slate-100 text-sm">
              {activity.map((a) => (
                <li key={a.id} className="py-2">
                  <span className="font-medium text-slate-900">{a.action}</span>{" "}
                  <span className="text-xs text-slate-500">
                    <time dateTime={a.createdAt}>{formatWhen(a.createdAt)}</time>
                  </span>
                  {a.details ? <span className="block text-slate-600">{a.details}</span> : null}
                </li>
              ))}
            </ul>
          ) : (
            <p className="text-sm text-slate-600">No activity yet.</p>
          )}
        </CardBody>
      </Card>
      <Card aria-labelledby="admin-records">
        <CardHeader
          id="admin-records"
          title="Administrator actions"
          actions={
            <Link to={`/admin/audit?org=${tenant.id}`} className="text-sm font-medium text-brand-700 underline">
              {moreAudit ? "All records in the audit log" : "Open in the audit log"}
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
                    by {r.adminEmail}, <time dateTime={r.createdAt}>{formatWhen(r.createdAt)}</time>
                  </span>
                  {r.reason ? <span className="block text-slate-600">Reason: {r.reason}</span> : null}
                  <span className="block text-xs text-slate-500">{describeChange(r.before, r.after)}</span>
                </li>
              ))}
            </ul>
          ) : (
            <p className="text-sm text-slate-600">No administrator has acted on this organisation.</p>
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
      <dd className="text-right font-medium text-slate-900">{value}</dd>
    </div>
  );
}
