import { href } from "react-router";
import { Link } from "~/components/ui/link";
import { ArrowLeft, ArrowRight } from "~/components/ui/icons";
import type { Route } from "./+types/get-started";
import { homeFor, requireDeclaredUser } from "~/.server/domains/auth/guards";
import { ButtonLink, buttonClass } from "~/components/ui/button";
import { Badge } from "~/components/ui/badge";
import { CheckCircle2, Circle } from "~/components/ui/icons";
import { overviewFigures, type SetupProgress } from "~/.server/domains/dashboard/progress";
import { PageErrorBoundary } from "~/components/layout/page-error";
import type { PermissionHandle } from "~/lib/permissions";
import { PageTitle } from "~/components/ui/page-title";
import { m } from "~/paraglide/messages";

export const handle: PermissionHandle = { permission: "tutorial:view" };

export const meta: Route.MetaFunction = () => [{ title: `${m.app_nav_get_started()} | Jumbe` }];

interface Step {
  title: string;
  done: keyof SetupProgress | null;
  body: string;
  link: { to: string; label: string } | null;
}

/** The tour's steps, in the page's language. */
const steps = (): Step[] => [
  {
    title: m.app_tutorial_welcome_title(),
    done: null,
    body: m.app_tutorial_welcome_body(),
    link: null,
  },
  {
    title: m.app_dashboard_connect_whatsapp(),
    done: "whatsapp",
    body: m.app_tutorial_whatsapp_body(),
    link: { to: href("/whatsapp"), label: m.app_tutorial_whatsapp_link() },
  },
  {
    title: m.app_tutorial_templates_title(),
    done: "templates",
    // A template's variable as Meta writes it: braces are only for inputs in the words files.
    body: m.app_tutorial_templates_body({ example: "{{1}}" }),
    link: { to: href("/templates"), label: m.app_tutorial_templates_link() },
  },
  {
    title: m.app_tutorial_contacts_title(),
    done: "contacts",
    body: m.app_tutorial_contacts_body(),
    link: { to: href("/messaging"), label: m.app_tutorial_message_center_link() },
  },
  {
    title: m.app_tutorial_campaign_title(),
    done: "campaign",
    body: m.app_tutorial_campaign_body(),
    link: { to: href("/messaging"), label: m.app_tutorial_message_center_link() },
  },
  {
    title: m.app_tutorial_results_title(),
    done: "results",
    body: m.app_tutorial_results_body(),
    link: { to: href("/analytics"), label: m.app_tutorial_results_link() },
  },
];

export async function loader(args: Route.LoaderArgs) {
  const current = await requireDeclaredUser(args);
  const raw = Number(args.url.searchParams.get("step") ?? "1");
  const step = Number.isInteger(raw) && raw >= 1 && raw <= steps().length ? raw : 1;
  // Which steps the tenant has done, from its own records (a connected number, an approved template…).
  const { progress } = await overviewFigures(current.organization.id);
  return { step, home: homeFor(current.role), progress };
}

// Every control is a link (?step=N), so the tutorial works without JavaScript.
export default function GetStarted({ loaderData }: Route.ComponentProps) {
  const { step, home, progress } = loaderData;
  const tour = steps();
  const current = tour[step - 1]!;
  const last = step === tour.length;
  return (
    <div className="mx-auto max-w-2xl">
      <div className="flex items-center justify-between text-sm text-slate-600">
        <span>{m.app_tutorial_step_of({ step, total: tour.length })}</span>
        <Link to={home} className="font-medium text-slate-600 hover:text-slate-900 hover:underline">
          {m.app_tutorial_skip()}
        </Link>
      </div>
      <div
        className="mt-2 h-2 rounded-full bg-slate-200"
        role="progressbar"
        aria-valuemin={1}
        aria-valuemax={tour.length}
        aria-valuenow={step}
        aria-label={m.app_tutorial_progress()}
      >
        <div className="h-2 rounded-full bg-brand-600 transition-[width]" style={{ width: `${(step / tour.length) * 100}%` }} />
      </div>
      <article className="mt-6 rounded-xl border border-slate-200 bg-white p-8 shadow-sm">
        <div className="flex flex-wrap items-center gap-3">
          <PageTitle>{current.title}</PageTitle>
          {current.done ? (
            <Badge tone={progress[current.done] ? "success" : "neutral"}>
              {progress[current.done] ? m.app_tutorial_done() : m.app_tutorial_not_done()}
            </Badge>
          ) : null}
        </div>
        <p className="mt-3 text-slate-600">{current.body}</p>
        {current.link ? (
          <Link to={current.link.to} className="mt-4 inline-block font-semibold text-brand-700 hover:underline">
            {current.link.label}
          </Link>
        ) : null}
      </article>
      <section className="mt-6 rounded-xl border border-slate-200 bg-white p-6 shadow-sm" aria-labelledby="progress-title">
        <h2 id="progress-title" className="font-semibold">
          {m.app_tutorial_your_progress()}
        </h2>
        <ul className="mt-3 space-y-2 text-sm">
          {tour.map((s, i) =>
            s.done ? (
              <li key={s.done} className="flex items-center gap-2" data-testid="setup-step">
                {progress[s.done] ? (
                  <CheckCircle2 className="size-4 text-brand-600" aria-hidden />
                ) : (
                  <Circle className="size-4 text-slate-400" aria-hidden />
                )}
                <Link to={`?step=${i + 1}`} className="text-slate-700 hover:underline">
                  {s.title}
                </Link>
                <span className="sr-only">{progress[s.done] ? m.app_tutorial_done_sr() : m.app_tutorial_not_done_sr()}</span>
              </li>
            ) : null,
          )}
        </ul>
      </section>
      {/* On a phone the step dots take a row of their own under the two buttons, so that a longer
          word ("Iliyotangulia", "Endelea") never pushes the next button off the screen. */}
      <nav className="mt-6 flex flex-wrap items-center justify-between gap-y-4" aria-label={m.app_tutorial_steps()}>
        {step > 1 ? (
          <ButtonLink to={`?step=${step - 1}`} variant="secondary">
            <ArrowLeft className="size-4" aria-hidden /> {m.app_tutorial_previous()}
          </ButtonLink>
        ) : (
          <span aria-hidden className={buttonClass("secondary", "md", "invisible")}>
            {m.app_tutorial_previous()}
          </span>
        )}
        <ol className="order-last flex w-full justify-center gap-2 sm:order-none sm:w-auto">
          {tour.map((s, i) => (
            <li key={i}>
              <Link
                to={`?step=${i + 1}`}
                aria-label={m.app_tutorial_step_label({ step: i + 1, title: s.title })}
                aria-current={i + 1 === step ? "step" : undefined}
                className={`block size-2.5 rounded-full ${i + 1 === step ? "bg-brand-600" : "bg-slate-300 hover:bg-slate-400"}`}
              />
            </li>
          ))}
        </ol>
        {last ? (
          <ButtonLink to={home}>{m.app_tutorial_finish()}</ButtonLink>
        ) : (
          <ButtonLink to={`?step=${step + 1}`}>
            {m.app_tutorial_next()} <ArrowRight className="size-4" aria-hidden />
          </ButtonLink>
        )}
      </nav>
    </div>
  );
}

// What went wrong, in words, inside the page's own layout.
export function ErrorBoundary() {
  return <PageErrorBoundary />;
}
