import { href, Link } from "react-router";
import { ArrowLeft, ArrowRight } from "~/components/ui/icons";
import type { Route } from "./+types/get-started";
import { homeFor, requireUserWithPermission } from "~/.server/domains/auth/guards";
import { ButtonLink, buttonClass } from "~/components/ui/button";
import { Badge } from "~/components/ui/badge";
import { CheckCircle2, Circle } from "~/components/ui/icons";
import { overviewFigures, type SetupProgress } from "~/.server/domains/dashboard/progress";
import { PageErrorBoundary } from "~/components/layout/page-error";
import type { PermissionHandle } from "~/lib/permissions";
import { PageTitle } from "~/components/ui/page-title";

export const handle: PermissionHandle = { permission: "tutorial:view" };

export const meta: Route.MetaFunction = () => [{ title: "Get Started | Jumbe" }];

const STEPS: { title: string; done: keyof SetupProgress | null; body: string; link: { to: string; label: string } | null }[] = [
  {
    title: "Welcome to Jumbe",
    done: null,
    body: "Jumbe connects your organisation to customers on WhatsApp: templates, campaigns, broadcasts and live chat in one place. This short tour shows the way.",
    link: null,
  },
  {
    title: "Connect WhatsApp",
    done: "whatsapp",
    body: "Link your WhatsApp Business account through Meta's Embedded Signup. Have your Business Manager ready, a phone number for the business, and admin access to your Facebook page.",
    link: { to: href("/whatsapp"), label: "Open WhatsApp Setup" },
  },
  {
    title: "Create message templates",
    done: "templates",
    body: "Messages that start a conversation use templates approved by Meta. Write them in English, Swahili or French, with {{1}}-style variables for names and amounts.",
    link: { to: href("/templates"), label: "Open Templates" },
  },
  {
    title: "Add your contacts",
    done: "contacts",
    body: "Import your customers' numbers: 07…, 01… and +254… forms are all understood. Tag them to reach the right group.",
    link: { to: href("/messaging"), label: "Open Message Center" },
  },
  {
    title: "Send your first campaign",
    done: "campaign",
    body: "Pick a template, choose an audience and send now or schedule it. Delivery and read receipts arrive as they happen.",
    link: { to: href("/messaging"), label: "Open Message Center" },
  },
  {
    title: "Track results",
    done: "results",
    body: "See sent, delivered, read and replied figures per campaign and per day, and keep an eye on costs in KES under Billing.",
    link: { to: href("/analytics"), label: "Open Analytics" },
  },
];

export async function loader(args: Route.LoaderArgs) {
  const current = await requireUserWithPermission(args, "tutorial:view");
  const raw = Number(args.url.searchParams.get("step") ?? "1");
  const step = Number.isInteger(raw) && raw >= 1 && raw <= STEPS.length ? raw : 1;
  // Which steps the tenant has done, from its own records (a connected number, an approved template…).
  const { progress } = await overviewFigures(current.organization.id);
  return { step, home: homeFor(current.role), progress };
}

// Every control is a link (?step=N), so the tutorial works without JavaScript.
export default function GetStarted({ loaderData }: Route.ComponentProps) {
  const { step, home, progress } = loaderData;
  const current = STEPS[step - 1]!;
  const last = step === STEPS.length;
  return (
    <div className="mx-auto max-w-2xl">
      <div className="flex items-center justify-between text-sm text-slate-600">
        <span>
          Step {step} of {STEPS.length}
        </span>
        <Link to={home} className="font-medium text-slate-600 hover:text-slate-900 hover:underline">
          Skip Tutorial
        </Link>
      </div>
      <div
        className="mt-2 h-2 rounded-full bg-slate-200"
        role="progressbar"
        aria-valuemin={1}
        aria-valuemax={STEPS.length}
        aria-valuenow={step}
        aria-label="Tutorial progress"
      >
        <div className="h-2 rounded-full bg-brand-600 transition-[width]" style={{ width: `${(step / STEPS.length) * 100}%` }} />
      </div>
      <article className="mt-6 rounded-xl border border-slate-200 bg-white p-8 shadow-sm">
        <div className="flex flex-wrap items-center gap-3">
          <PageTitle>{current.title}</PageTitle>
          {current.done ? (
            <Badge tone={progress[current.done] ? "success" : "neutral"}>{progress[current.done] ? "Done" : "Not done yet"}</Badge>
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
          Your progress
        </h2>
        <ul className="mt-3 space-y-2 text-sm">
          {STEPS.map((s, i) =>
            s.done ? (
              <li key={s.title} className="flex items-center gap-2" data-testid="setup-step">
                {progress[s.done] ? (
                  <CheckCircle2 className="size-4 text-brand-600" aria-hidden />
                ) : (
                  <Circle className="size-4 text-slate-400" aria-hidden />
                )}
                <Link to={`?step=${i + 1}`} className="text-slate-700 hover:underline">
                  {s.title}
                </Link>
                <span className="sr-only">{progress[s.done] ? "(done)" : "(not done yet)"}</span>
              </li>
            ) : null,
          )}
        </ul>
      </section>
      <nav className="mt-6 flex items-center justify-between" aria-label="Tutorial steps">
        {step > 1 ? (
          <ButtonLink to={`?step=${step - 1}`} variant="secondary">
            <ArrowLeft className="size-4" aria-hidden /> Previous
          </ButtonLink>
        ) : (
          <span aria-hidden className={buttonClass("secondary", "md", "invisible")}>
            Previous
          </span>
        )}
        <ol className="flex gap-2">
          {STEPS.map((s, i) => (
            <li key={s.title}>
              <Link
                to={`?step=${i + 1}`}
                aria-label={`Step ${i + 1}: ${s.title}`}
                aria-current={i + 1 === step ? "step" : undefined}
                className={`block size-2.5 rounded-full ${i + 1 === step ? "bg-brand-600" : "bg-slate-300 hover:bg-slate-400"}`}
              />
            </li>
          ))}
        </ol>
        {last ? (
          <ButtonLink to={home}>Get Started</ButtonLink>
        ) : (
          <ButtonLink to={`?step=${step + 1}`}>
            Next <ArrowRight className="size-4" aria-hidden />
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
