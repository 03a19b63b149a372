import type { ReactNode } from "react";
import { href } from "react-router";
import { Link } from "~/components/ui/link";
import { CheckCircle2, Globe2, ShieldCheck, Zap } from "~/components/ui/icons";
import { Logo } from "~/components/ui/logo";
import { LanguageSwitcher } from "~/components/ui/language-switcher";
import { m } from "~/paraglide/messages";

/** Centered card used by sign-in, verification and password pages, with an optional side panel. */
export function AuthShell({
  title,
  subtitle,
  children,
  aside,
}: {
  title: string;
  subtitle?: ReactNode;
  children: ReactNode;
  aside?: ReactNode;
}) {
  return (
    <div className="flex min-h-screen">
      <main className="flex flex-1 flex-col justify-center px-4 py-10 sm:px-8">
        <div className="mx-auto w-full max-w-md">
          <Link to={href("/")} className="mb-8 inline-block" aria-label={m.auth_home_label()}>
            <Logo />
          </Link>
          <h1 className="text-2xl font-bold tracking-tight text-slate-900">{title}</h1>
          {subtitle ? <p className="mt-1 text-slate-600">{subtitle}</p> : null}
          <div className="mt-6">{children}</div>
          {/* Before signing in too: the language of the sign-in, sign-up and code pages (issue 43). */}
          <LanguageSwitcher className="mt-10 border-t border-slate-200 pt-4 text-slate-600" />
        </div>
      </main>
      {aside ? <aside className="hidden flex-1 bg-gradient-to-br from-brand-700 to-brand-900 lg:flex">{aside}</aside> : null}
    </div>
  );
}

/** The sign-up page's marketing panel. */
export function MarketingPanel() {
  const points = [
    { icon: Zap, text: m.auth_marketing_point_launch() },
    { icon: Globe2, text: m.auth_marketing_point_languages() },
    { icon: ShieldCheck, text: m.auth_marketing_point_security() },
    { icon: CheckCircle2, text: m.auth_marketing_point_channels() },
  ];
  return (
    <div className="flex flex-col justify-center p-12 text-white">
      <h2 className="text-3xl font-bold">{m.auth_marketing_title()}</h2>
      <p className="mt-3 max-w-md text-brand-100">{m.auth_marketing_text()}</p>
      <ul className="mt-8 space-y-4">
        {points.map(({ icon: Icon, text }) => (
          <li key={text} className="flex items-start gap-3">
            <Icon className="mt-0.5 size-5 shrink-0 text-brand-200" aria-hidden />
            <span>{text}</span>
          </li>
        ))}
      </ul>
    </div>
  );
}

// A business's name reads the same in every language.
const PREVIEW_SENDER = "Nyota Savings Sacco";

/** The sign-in page's decorative chat preview. */
export function ChatPreview() {
  const bubbles = [
    { from: "them", text: m.auth_preview_question() },
    { from: "us", text: m.auth_preview_answer() },
    { from: "them", text: m.auth_preview_thanks() },
  ];
  return (
    <div className="flex w-full flex-col items-center justify-center p-12" aria-hidden>
      <div className="w-full max-w-sm rounded-2xl bg-[#efeae2] p-4 shadow-2xl">
        <div className="mb-3 flex items-center gap-2 rounded-lg bg-brand-700 p-3 text-white">
          <span className="flex size-8 items-center justify-center rounded-full bg-brand-900 text-sm font-bold">NS</span>
          <span className="text-sm font-semibold">{PREVIEW_SENDER}</span>
        </div>
        <div className="space-y-2">
          {bubbles.map((b) => (
            <p
              key={b.text}
              className={`max-w-[80%] rounded-lg px-3 py-2 text-sm shadow-sm ${b.from === "us" ? "ml-auto bg-[#d9fdd3]" : "bg-white"}`}
            >
              {b.text}
            </p>
          ))}
        </div>
      </div>
      <p className="mt-6 text-center text-brand-100">{m.auth_preview_caption()}</p>
    </div>
  );
}
