import { href, useNavigation } from "react-router";
import { Link } from "~/components/ui/link";
import { BarChart3, CheckCircle2, FileText, MessageSquare, Send, ShieldCheck, Users, XCircle, AlertTriangle } from "~/components/ui/icons";
import type { Route } from "./+types/dashboard";
import { requireDeclaredUser } from "~/.server/domains/auth/guards";
import { dashboardOverview } from "~/.server/domains/dashboard/overview";
import { StatCard } from "~/components/ui/stat-card";
import { formatNumber, formatWhen } from "~/lib/dates";
import { ConnectionList } from "~/components/whatsapp/connection-list";
import { PageErrorBoundary } from "~/components/layout/page-error";
import { Card } from "~/components/ui/card";
import { useGrants } from "~/components/layout/shell-role";
import type { PermissionHandle } from "~/lib/permissions";
import type { BrowserPermission } from "~/lib/grants";
import { PageTitle } from "~/components/ui/page-title";
import { m } from "~/paraglide/messages";

export const handle: PermissionHandle = { permission: "overview:view" };

export const meta: Route.MetaFunction = () => [{ title: `${m.app_nav_overview()} | Jumbe` }];

export async function loader(args: Route.LoaderArgs) {
  const current = await requireDeclaredUser(args);
  return { businessName: current.organization.name, overview: await dashboardOverview(current, args.context) };
}

// Each quick action is offered only to a role that can do it (a viewer reads; an agent makes no templates).
// Send Message starts a conversation with one person (a campaign is the Message Center's);
// Manage Contacts to the Message Center's Contacts tab.
const quickActions = (): { to: string; label: string; icon: typeof Send; needs: BrowserPermission }[] => [
  { to: href("/chat/new"), label: m.app_dashboard_send_message(), icon: Send, needs: "inbox:reply" },
  { to: href("/messaging/contacts"), label: m.app_dashboard_manage_contacts(), icon: Users, needs: "contacts:manage" },
  { to: href("/templates"), label: m.app_dashboard_create_template(), icon: FileText, needs: "templates:manage" },
  { to: href("/analytics"), label: m.app_dashboard_view_analytics(), icon: BarChart3, needs: "campaigns:view" },
];

/** The Account Status card's figure: the status in words (the loader says Setup, Active or Suspended). */
function statusWords(status: "Setup" | "Active" | "Suspended") {
  if (status === "Setup") return m.app_dashboard_status_setup();
  return status === "Suspended" ? m.app_dashboard_status_suspended() : m.app_dashboard_status_active();
}

/** What a tenant in setup still has to do, or has done, of the two steps. */
function setupHint(progress: { whatsapp: boolean; templates: boolean }) {
  if (progress.whatsapp && progress.templates) return m.app_dashboard_setup_hint_both();
  if (progress.whatsapp) return m.app_dashboard_setup_hint_whatsapp();
  if (progress.templates) return m.app_dashboard_setup_hint_templates();
  return m.app_dashboard_setup_hint_none();
}

export default function Dashboard({ loaderData }: Route.ComponentProps) {
  const { overview, businessName } = loaderData;
  const navigation = useNavigation();
  const grants = useGrants();
  const actions = quickActions().filter((action) => grants.includes(action.needs));
  return (
    <div className="space-y-6">
      <div>
        <PageTitle>{m.app_nav_overview()}</PageTitle>
        <p className="text-slate-600">{m.app_dashboard_welcome({ name: businessName })}</p>
      </div>

      <Card aria-labelledby="wa-card">
        <div className="flex flex-col gap-4 sm:flex-row sm:items-center">
          <span
            className={`flex size-12 shrink-0 items-center justify-center rounded-full ${overview.whatsapp.connected ? "bg-brand-100 text-brand-700" : "bg-slate-100 text-slate-500"}`}
          >
            <MessageSquare className="size-6" aria-hidden />
          </span>
          <div className="flex-1">
            <h2 id="wa-card" className="font-semibold">
              WhatsApp Business
            </h2>
            <p className="text-sm text-slate-600" data-testid="whatsapp-status">
              {overview.whatsapp.connected
                ? m.app_status_connected()
                : overview.whatsapp.connections.length
                  ? m.app_dashboard_whatsapp_disconnected()
                  : m.app_dashboard_whatsapp_not_connected()}
            </p>
          </div>
          <Link
            to={href("/whatsapp")}
            className="rounded-lg bg-brand-700 px-4 py-2 text-center text-sm font-semibold text-white hover:bg-brand-900"
          >
            {overview.whatsapp.connections.length ? m.app_dashboard_manage() : m.app_dashboard_connect_whatsapp()}
          </Link>
        </div>
        {overview.whatsapp.connections.length ? (
          <div className="mt-4">
            <ConnectionList connections={overview.whatsapp.connections} busy={navigation.state !== "idle"} redirectTo="/dashboard" />
          </div>
        ) : null}
      </Card>

      <div className="grid grid-cols-1 gap-4 sm:grid-cols-2 lg:grid-cols-4">
        <StatCard
          label={m.app_dashboard_messages_sent()}
          value={formatNumber(overview.messagesSent)}
          icon={Send}
          hint={m.app_dashboard_messages_sent_hint()}
        />
        <StatCard
          label={m.app_dashboard_active_contacts()}
          value={formatNumber(overview.activeContacts)}
          icon={Users}
          hint={m.app_dashboard_active_contacts_hint()}
        />
        <StatCard
          label={m.app_nav_templates()}
          value={m.app_dashboard_templates_value({
            approved: formatNumber(overview.templatesApproved),
            total: formatNumber(overview.templatesTotal),
          })}
          icon={FileText}
          hint={m.app_dashboard_templates_hint()}
        />
        <StatCard
          label={m.app_dashboard_account_status()}
          value={statusWords(overview.accountStatus)}
          icon={ShieldCheck}
          hint={
            overview.accountStatus === "Setup"
              ? setupHint(overview.progress)
              : overview.accountStatus === "Suspended"
                ? m.app_dashboard_suspended_hint()
                : m.app_dashboard_ready_hint()
          }
        />
      </div>

      <div className="grid grid-cols-1 gap-6 lg:grid-cols-2">
        <Card>
          <h2 className="font-semibold">{m.app_dashboard_quick_actions()}</h2>
          <div className="mt-4 grid grid-cols-2 gap-3">
            {actions.map(({ to, label, icon: Icon }) => (
              <Link
                key={to}
                to={to}
                className="flex flex-col items-center gap-2 rounded-lg border border-slate-200 p-4 text-center text-sm font-medium text-slate-700 hover:border-brand-600 hover:bg-brand-50"
              >
                <Icon className="size-6 text-brand-600" aria-hidden />
                {label}
              </Link>
            ))}
          </div>
        </Card>
        <Card>
          <h2 className="font-semibold">{m.app_dashboard_recent_activity()}</h2>
          {overview.recentActivity.length ? (
            <ul className="mt-4 divide-y divide-slate-100">
              {overview.recentActivity.map((item) => (
                <li key={item.id} className="flex gap-3 py-3" data-testid="recent-activity-item">
                  {item.status === "success" ? (
                    <CheckCircle2 className="size-5 shrink-0 text-brand-600" aria-hidden />
                  ) : item.status === "warning" ? (
                    <AlertTriangle className="size-5 shrink-0 text-amber-500" aria-hidden />
                  ) : (
                    <XCircle className="size-5 shrink-0 text-red-600" aria-hidden />
                  )}
                  <div className="min-w-0">
                    <p className="text-sm font-medium text-slate-900">
                      {item.action}
                      {item.count > 1 ? (
                        <span
                          className="ml-2 rounded-full bg-slate-100 px-2 py-0.5 text-xs font-semibold text-slate-600"
                          data-testid="repeat-count"
                        >
                          ×{item.count}
                          {item.atLeast ? "+" : ""}
                        </span>
                      ) : null}
                    </p>
                    {item.details ? <p className="truncate text-sm text-slate-600">{item.details}</p> : null}
                    <p className="text-xs text-slate-500">
                      {item.count > 1
                        ? `${item.atLeast ? m.app_dashboard_or_earlier({ when: formatWhen(item.firstAt) }) : formatWhen(item.firstAt)} – ${formatWhen(item.at)}`
                        : formatWhen(item.at)}
                    </p>
                  </div>
                </li>
              ))}
            </ul>
          ) : (
            <p className="mt-4 text-sm text-slate-500">{m.app_dashboard_no_activity()}</p>
          )}
        </Card>
      </div>
    </div>
  );
}

// What went wrong, in words, inside the page's own layout.
export function ErrorBoundary() {
  return <PageErrorBoundary />;
}
