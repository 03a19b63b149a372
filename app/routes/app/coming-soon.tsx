import { data, href, Link } from "react-router";
import { Hourglass } from "~/components/ui/icons";
import type { Route } from "./+types/coming-soon";
import { requireUserWithPermission } from "~/.server/domains/auth/guards";
import { isPlannedPath, PLANNED_PAGES } from "~/lib/planned-pages";
import { PageErrorBoundary } from "~/components/layout/page-error";
import type { PermissionHandle } from "~/lib/permissions";
import { m } from "~/paraglide/messages";

// Mounted at every planned page's address, each with that page's permission.
export const handle: PermissionHandle = {
  permission: Object.fromEntries(Object.entries(PLANNED_PAGES).map(([path, page]) => [path, page.permission])),
};

export const meta: Route.MetaFunction = ({ loaderData }) => [{ title: `${loaderData?.title ?? m.app_coming_soon()} | Jumbe` }];

export async function loader(args: Route.LoaderArgs) {
  await requireUserWithPermission(args);
  const path = args.url.pathname.replace(/\/+$/, "");
  if (!isPlannedPath(path)) throw data(null, { status: 404 });
  const page = PLANNED_PAGES[path];
  return { path, title: page.title(), summary: page.summary(), permission: page.permission };
}

/** A page the product will have, said plainly, inside the shell. */
export default function ComingSoon({ loaderData }: Route.ComponentProps) {
  return (
    <section
      className="mx-auto max-w-xl rounded-xl border border-slate-200 bg-white p-8 text-center shadow-sm"
      aria-labelledby="coming-soon-title"
    >
      <span className="mx-auto flex size-12 items-center justify-center rounded-full bg-amber-50 text-amber-700">
        <Hourglass className="size-6" aria-hidden />
      </span>
      <p className="mt-4 text-xs font-semibold tracking-wide text-amber-700 uppercase">{m.app_coming_soon()}</p>
      <h1 id="coming-soon-title" className="mt-1 text-2xl font-bold tracking-tight">
        {loaderData.title}
      </h1>
      <p className="mt-2 text-slate-600">{loaderData.summary}</p>
      <p className="mt-6 text-sm text-slate-500">{m.app_coming_soon_body()}</p>
      <Link
        to={href("/dashboard")}
        className="mt-6 inline-flex rounded-lg bg-brand-700 px-4 py-2.5 text-sm font-semibold text-white hover:bg-brand-900"
      >
        {m.app_coming_soon_back()}
      </Link>
    </section>
  );
}

// What went wrong, in words, inside the page's own layout.
export function ErrorBoundary() {
  return <PageErrorBoundary />;
}
