import { data } from "react-router";
import { Link } from "~/components/ui/link";
import { ShieldAlert } from "~/components/ui/icons";
import type { Role } from "~/lib/permissions";
import type { Route } from "./+types/unauthorized";
import { can, currentUser, homeFor } from "~/.server/domains/auth/guards";
import { AuthErrorBoundary } from "~/components/layout/auth-error";
import { documentPage, loadAsDocument } from "~/components/layout/document-page";
import { m } from "~/paraglide/messages";

// Plain HTML in the browser, no React (decision 060).
export const handle = documentPage;
export const clientLoader = loadAsDocument;

export const meta: Route.MetaFunction = () => [{ title: m.auth_unauthorized_meta_title() }];

// How each role is named to the member it refuses, as "You are …" goes on.
const youAre = (role: Role) =>
  ({
    platform_admin: m.auth_unauthorized_as_platform_admin,
    platform_finance: m.auth_unauthorized_as_platform_finance,
    platform_support: m.auth_unauthorized_as_platform_support,
    owner: m.auth_unauthorized_as_owner,
    admin: m.auth_unauthorized_as_admin,
    agent: m.auth_unauthorized_as_agent,
    viewer: m.auth_unauthorized_as_viewer,
  })[role]();

/**
 * Where a refused member lands (spec section 6: the guard redirects here). It answers 403, says which
 * role they have and who can change it, and links home: a page their role opens, so never a loop.
 */
export async function loader(args: Route.LoaderArgs) {
  const current = await currentUser(args);
  return data(
    {
      home: current ? homeFor(current.role) : "/login",
      role: current ? current.role : null,
      organisation: current && !can(current.role, "platform:console") ? current.organization.name : null,
    },
    { status: 403 },
  );
}

export default function Unauthorized({ loaderData }: Route.ComponentProps) {
  return (
    <main className="flex min-h-screen items-center justify-center p-6">
      <div className="max-w-md rounded-xl border border-slate-200 bg-white p-8 text-center shadow-sm">
        <ShieldAlert className="mx-auto size-12 text-amber-500" aria-hidden />
        <h1 className="mt-4 text-xl font-semibold">{m.auth_unauthorized_title()}</h1>
        <p className="mt-2 text-slate-600">{m.auth_unauthorized_text()}</p>
        {loaderData.role ? (
          <p className="mt-2 text-sm text-slate-600">
            {loaderData.organisation
              ? m.auth_unauthorized_role_in({ role: youAre(loaderData.role), organisation: loaderData.organisation })
              : m.auth_unauthorized_role({ role: youAre(loaderData.role) })}
            {loaderData.organisation && loaderData.role !== "owner" ? ` ${m.auth_unauthorized_ask()}` : ""}
          </p>
        ) : null}
        <Link
          to={loaderData.home}
          className="mt-6 inline-block rounded-lg bg-brand-700 px-4 py-2 font-semibold text-white hover:bg-brand-900"
        >
          {m.auth_unauthorized_home()}
        </Link>
      </div>
    </main>
  );
}

// What went wrong, in words, inside the page's own layout.
export function ErrorBoundary() {
  return <AuthErrorBoundary />;
}
