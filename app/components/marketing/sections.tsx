import { Check, ChevronDown, Globe2, Lock, Rocket, ShieldCheck, Activity, Landmark, Building2, Bot } from "~/components/ui/icons";
import type { ReactNode } from "react";
import { ClientLogo } from "./client-logos";
import { rich } from "~/content/legal/blocks";
import { m } from "~/paraglide/messages";
import { CAROUSEL_CLIENTS, caseStudies, faqs, features, heroChat, pricingFeatures, solutions } from "./content";
import { DemoChat } from "./demo-chat";

const primaryButton =
  "inline-flex min-h-12 items-center justify-center rounded-lg bg-brand-700 px-6 py-3 font-semibold text-white shadow-sm hover:bg-brand-900";
const secondaryButton =
  "inline-flex min-h-12 items-center justify-center rounded-lg border border-slate-300 bg-white px-6 py-3 font-semibold text-slate-800 hover:bg-slate-50";
const sectionClass = "scroll-mt-16 px-4 py-16 sm:px-6 sm:py-24";

function SectionHeading({ eyebrow, title, children, id }: { eyebrow: string; title: string; children?: ReactNode; id: string }) {
  return (
    <div className="mx-auto max-w-2xl text-center">
      <p className="text-sm font-semibold tracking-wide text-brand-700 uppercase">{eyebrow}</p>
      <h2 id={id} className="mt-2 text-3xl font-bold tracking-tight text-slate-900 sm:text-4xl">
        {title}
      </h2>
      {children ? <p className="mt-4 text-lg text-slate-600">{children}</p> : null}
    </div>
  );
}

export function Hero({ appUrl, salesEmail }: { appUrl: string; salesEmail: string }) {
  return (
    <section aria-labelledby="hero-title" className="bg-linear-to-b from-brand-50 to-white px-4 pt-28 pb-16 sm:px-6 sm:pt-32 sm:pb-24">
      <div className="mx-auto grid max-w-6xl items-center gap-12 lg:grid-cols-[1fr_auto]">
        <div>
          <p className="inline-flex items-center gap-2 rounded-full bg-brand-100 px-3 py-1 text-sm font-semibold text-brand-900">
            {m.public_hero_badge()}
          </p>
          <h1 id="hero-title" className="mt-5 text-4xl font-extrabold tracking-tight text-slate-900 sm:text-5xl lg:text-6xl">
            {m.public_hero_title()}
          </h1>
          <p className="mt-6 max-w-2xl text-lg leading-relaxed text-slate-600">{m.public_hero_lead()}</p>
          <div className="mt-8 flex flex-wrap gap-3">
            <a href={`${appUrl}/signup`} className={primaryButton}>
              {m.public_cta_get_started()}
            </a>
            <a href={`mailto:${salesEmail}`} className={secondaryButton}>
              {m.public_hero_talk_to_sales()}
            </a>
          </div>
          <ul className="mt-8 flex flex-wrap gap-x-6 gap-y-2 text-sm font-medium text-slate-700">
            <li className="inline-flex items-center gap-2">
              <Lock className="size-4 text-brand-700" aria-hidden /> {m.public_claim_encryption()}
            </li>
            <li className="inline-flex items-center gap-2">
              <ShieldCheck className="size-4 text-brand-700" aria-hidden /> {m.public_claim_soc2()}
            </li>
            <li className="inline-flex items-center gap-2">
              <Activity className="size-4 text-brand-700" aria-hidden /> {m.public_claim_uptime()}
            </li>
          </ul>
        </div>
        <DemoChat chat={heroChat()} className="mx-auto lg:mx-0" />
      </div>
    </section>
  );
}

/**
 * A horizontally scrollable strip of 7 client logos. Without JavaScript it simply scrolls; with it,
 * app/assets/landing.js advances it every 3 s by half its width and wraps to the start, pausing on
 * hover and focus and for visitors who prefer reduced motion.
 */
export function ClientCarousel() {
  return (
    <section aria-labelledby="clients-title" className="border-y border-slate-200 bg-white px-4 py-10 sm:px-6">
      <div className="mx-auto max-w-6xl">
        <h2 id="clients-title" className="text-center text-sm font-semibold tracking-wide text-slate-600 uppercase">
          {m.public_clients_title()}
        </h2>
        <div
          data-carousel
          role="region"
          aria-label={m.public_clients_label()}
          tabIndex={0}
          className="mt-6 overflow-x-auto rounded-lg [scrollbar-width:thin]"
        >
          <ul className="flex w-max items-center gap-12 px-2 py-3">
            {CAROUSEL_CLIENTS.map((id) => (
              <li key={id} className="shrink-0">
                <ClientLogo id={id} labelled />
              </li>
            ))}
          </ul>
        </div>
      </div>
    </section>
  );
}

const SOLUTION_ICONS = { "public-sector": Landmark, banking: Building2, enterprise: Bot } as Record<string, typeof Landmark>;

export function Solutions() {
  return (
    <section id="solutions" aria-labelledby="solutions-title" className={sectionClass}>
      <SectionHeading id="solutions-title" eyebrow={m.public_nav_solutions()} title={m.public_solutions_title()}>
        {m.public_solutions_lead()}
      </SectionHeading>
      <div className="mx-auto mt-16 max-w-6xl space-y-20">
        {solutions().map((solution, index) => {
          const Icon = SOLUTION_ICONS[solution.id] ?? Bot;
          return (
            <article
              key={solution.id}
              id={solution.id}
              aria-labelledby={`${solution.id}-title`}
              className="grid scroll-mt-20 items-center gap-10 lg:grid-cols-2"
            >
              <div className={index % 2 === 1 ? "lg:order-2" : undefined}>
                <span className="flex size-12 items-center justify-center rounded-xl bg-brand-100 text-brand-700">
                  <Icon className="size-6" aria-hidden />
                </span>
                <h3 id={`${solution.id}-title`} className="mt-4 text-2xl font-bold text-slate-900 sm:text-3xl">
                  {solution.title}
                </h3>
                <p className="mt-4 text-lg leading-relaxed text-slate-600">{solution.lead}</p>
                <ul className="mt-6 space-y-3 text-slate-700">
                  {solution.points.map((point) => (
                    <li key={point} className="flex gap-3">
                      <Check className="mt-0.5 size-5 shrink-0 text-brand-700" aria-hidden />
                      <span>{point}</span>
                    </li>
                  ))}
                </ul>
              </div>
              <DemoChat chat={solution.chat} className="mx-auto" />
            </article>
          );
        })}
      </div>
    </section>
  );
}

const FEATURE_ICONS = { uptime: Activity, languages: Globe2, security: ShieldCheck, launch: Rocket } as const;

export function Features() {
  return (
    <section id="features" aria-labelledby="features-title" className={`${sectionClass} bg-white`}>
      <SectionHeading id="features-title" eyebrow={m.public_nav_features()} title={m.public_features_title()}>
        {m.public_features_lead()}
      </SectionHeading>
      <ul className="mx-auto mt-14 grid max-w-6xl gap-6 sm:grid-cols-2 lg:grid-cols-4">
        {features().map((feature) => {
          const Icon = FEATURE_ICONS[feature.icon];
          return (
            <li key={feature.title} className="rounded-2xl border border-slate-200 bg-slate-50 p-6">
              <span className="flex size-12 items-center justify-center rounded-xl bg-brand-700 text-white">
                <Icon className="size-6" aria-hidden />
              </span>
              <h3 className="mt-5 text-lg font-semibold text-slate-900">{feature.title}</h3>
              <p className="mt-2 leading-relaxed text-slate-600">{feature.text}</p>
            </li>
          );
        })}
      </ul>
    </section>
  );
}

export function CaseStudies() {
  return (
    <section id="case-studies" aria-labelledby="case-studies-title" className={sectionClass}>
      <SectionHeading id="case-studies-title" eyebrow={m.public_nav_case_studies()} title={m.public_cases_title()}>
        {m.public_cases_lead()}
      </SectionHeading>
      <ul className="mx-auto mt-14 grid max-w-6xl gap-6 sm:grid-cols-2 lg:grid-cols-4">
        {caseStudies().map((study) => (
          <li key={study.client} data-case-study className="flex flex-col rounded-2xl border border-slate-200 bg-white p-6 shadow-sm">
            <ClientLogo id={study.client} className="h-10 w-auto self-start" />
            <p className="mt-5 text-2xl font-bold text-brand-700">{study.result}</p>
            <h3 className="mt-2 font-semibold text-slate-900">{study.name}</h3>
            <p className="text-sm text-slate-600">{study.sector}</p>
            <p className="mt-3 text-sm leading-relaxed text-slate-600">{study.text}</p>
          </li>
        ))}
      </ul>
    </section>
  );
}

/** A pricing plan; its call to action reads 'Contact Us' (its language's) unless the plan says otherwise (spec section 1). */
function PlanCard({
  name,
  price,
  description,
  features,
  href,
  cta = m.public_pricing_contact_us(),
}: {
  name: string;
  price: string;
  description: string;
  features: string[];
  href: string;
  cta?: string;
}) {
  return (
    <div data-plan className="mx-auto mt-14 max-w-lg rounded-3xl border-2 border-brand-700 bg-white p-8 shadow-xl sm:p-10">
      <h3 className="text-xl font-bold text-slate-900">{name}</h3>
      <p className="mt-2 text-slate-600">{description}</p>
      <p className="mt-6 text-5xl font-extrabold tracking-tight text-slate-900">{price}</p>
      <ul className="mt-8 space-y-3 text-slate-700">
        {features.map((feature) => (
          <li key={feature} className="flex gap-3">
            <Check className="mt-0.5 size-5 shrink-0 text-brand-700" aria-hidden />
            <span>{feature}</span>
          </li>
        ))}
      </ul>
      <a href={href} className={`${primaryButton} mt-8 w-full`}>
        {cta}
      </a>
    </div>
  );
}

export function Pricing({ salesEmail }: { salesEmail: string }) {
  return (
    <section id="pricing" aria-labelledby="pricing-title" className={`${sectionClass} bg-white`}>
      <SectionHeading id="pricing-title" eyebrow={m.public_nav_pricing()} title={m.public_pricing_title()}>
        {m.public_pricing_lead()}
      </SectionHeading>
      <PlanCard
        name="Enterprise"
        price={m.public_pricing_price_custom()}
        description={m.public_pricing_description()}
        features={pricingFeatures()}
        href={`mailto:${salesEmail}`}
        cta={m.public_pricing_cta()}
      />
    </section>
  );
}

export function About() {
  return (
    <section id="about" aria-labelledby="about-title" className={sectionClass}>
      <div className="mx-auto grid max-w-6xl gap-10 lg:grid-cols-2 lg:items-center">
        <div>
          <p className="text-sm font-semibold tracking-wide text-brand-700 uppercase">{m.public_nav_about()}</p>
          <h2 id="about-title" className="mt-2 text-3xl font-bold tracking-tight text-slate-900 sm:text-4xl">
            {m.public_about_title()}
          </h2>
        </div>
        <div className="space-y-4 text-lg leading-relaxed text-slate-600">
          <p>{rich(m.public_about_p1, { jumbe: <strong className="text-slate-900">Jumbe</strong> })}</p>
          <p>{m.public_about_p2()}</p>
        </div>
      </div>
    </section>
  );
}

/** Four questions, one open at a time: native <details name="faq"> where supported, landing.js elsewhere. */
export function Faq() {
  return (
    <section id="faq" aria-labelledby="faq-title" className={`${sectionClass} bg-white`}>
      <SectionHeading id="faq-title" eyebrow={m.public_nav_faq()} title={m.public_faq_title()} />
      <div className="mx-auto mt-12 max-w-3xl divide-y divide-slate-200 rounded-2xl border border-slate-200">
        {faqs().map((faq, index) => (
          <details key={faq.question} name="faq" data-faq open={index === 0} className="group">
            <summary className="flex min-h-14 items-center justify-between gap-4 px-6 py-4 text-left font-semibold text-slate-900 hover:bg-slate-50">
              <span>{faq.question}</span>
              <ChevronDown className="size-5 shrink-0 text-slate-600 transition-transform group-open:rotate-180" aria-hidden />
            </summary>
            <p className="px-6 pb-5 leading-relaxed text-slate-600">{faq.answer}</p>
          </details>
        ))}
      </div>
    </section>
  );
}

export function ClosingCta({ appUrl, salesEmail }: { appUrl: string; salesEmail: string }) {
  return (
    <section aria-labelledby="cta-title" className="bg-brand-900 px-4 py-16 text-center sm:px-6 sm:py-20">
      <div className="mx-auto max-w-3xl">
        <h2 id="cta-title" className="text-3xl font-bold tracking-tight text-white sm:text-4xl">
          {m.public_closing_title()}
        </h2>
        <p className="mt-4 text-lg text-brand-100">{m.public_closing_lead()}</p>
        <div className="mt-8 flex flex-wrap justify-center gap-3">
          <a
            href={`${appUrl}/signup`}
            className="inline-flex min-h-12 items-center justify-center rounded-lg bg-white px-6 py-3 font-semibold text-brand-900 hover:bg-brand-50"
          >
            {m.public_closing_create_account()}
          </a>
          <a
            href={`mailto:${salesEmail}`}
            className="inline-flex min-h-12 items-center justify-center rounded-lg border border-white/60 px-6 py-3 font-semibold text-white hover:bg-white/10"
          >
            {m.public_closing_contact_sales()}
          </a>
        </div>
      </div>
    </section>
  );
}
