import { data, Link } from "react-router";
import { ShieldAlert } from "~/components/ui/icons";
import type { Route } from "./+types/unauthorized";
import { can, currentUser, homeFor } from "~/.server/domains/auth/guards";
import { AuthErrorBoundary } from "~/components/layout/auth-error";
import { documentPage, loadAsDocument } from "~/components/layout/document-page";

// Plain HTML in the browser, no React (decision 060).
export const handle = documentPage;
export const clientLoader = loadAsDocument;

export const meta: Route.MetaFunction = () => [{ title: "Access denied | Jumbe" }];

// How each role is named to the member it refuses.
const ROLE_WORDS = { platform_admin: "platform administrator", owner: "owner", admin: "admin", agent: "agent", viewer: "viewer" } as const;

/**
 * Where a refused member lands (spec section 6: the guard redirects here). It answers 403, says which
 * role they have and who can change it, and links home: a page their role opens, so never a loop.
 */
export async function loader(args: Route.LoaderArgs) {
  const current = await currentUser(args);
  return data(
    {
      home: current ? homeFor(current.role) : "/login",
      role: current ? ROLE_WORDS[current.role] : null,
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
        <h1 className="mt-4 text-xl font-semibold">Access denied</h1>
        <p className="mt-2 text-slate-600">You do not have permission to view this page.</p>
        {loaderData.role ? (
          <p className="mt-2 text-sm text-slate-600">
            You are {loaderData.role === "admin" || loaderData.role === "agent" ? "an" : "a"} {loaderData.role}
            {loaderData.organisation ? ` in ${loaderData.organisation}` : ""}, and your role does not include it.
            {loaderData.organisation && loaderData.role !== "owner" ? " Ask your organisation's owner or an admin if you need it." : ""}
          </p>
        ) : null}
        <Link
          to={loaderData.home}
          className="mt-6 inline-block rounded-lg bg-brand-700 px-4 py-2 font-semibold text-white hover:bg-brand-900"
        >
          Go to your home page
        </Link>
      </div>
    </main>
  );
}

// What went wrong, in words, inside the page's own layout.
export function ErrorBoundary() {
  return <AuthErrorBoundary />;
}
