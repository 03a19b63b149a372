import { Link } from "react-router";
import { ShieldAlert } from "~/components/ui/icons";
import type { Route } from "./+types/unauthorized";
import { currentUser, homeFor } from "~/.server/auth/guards";
import { AuthErrorBoundary } from "~/components/layout/page-error";

export const meta: Route.MetaFunction = () => [{ title: "Access denied | Jumbe" }];

export async function loader(args: Route.LoaderArgs) {
  const current = await currentUser(args);
  return { home: current ? homeFor(current.role) : "/login" };
}

export default function Unauthorized({ loaderData }: Route.ComponentProps) {
  return (
    <main className="flex min-h-screen items-center justify-center p-6">
      <div className="max-w-md rounded-xl border border-slate-200 bg-white p-8 text-center shadow-sm">
        <ShieldAlert className="mx-auto size-12 text-amber-500" aria-hidden />
        <h1 className="mt-4 text-xl font-semibold">Access denied</h1>
        <p className="mt-2 text-slate-600">You do not have permission to view this page.</p>
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
