import { languageLinks } from "~/lib/alternates";
import { ArrowLeft } from "~/components/ui/icons";
import { Logo } from "~/components/ui/logo";
import { rich } from "~/content/legal/blocks";
import { formatLegalDate, sectionId, type LegalDocumentContent } from "~/content/legal/types";
import { m } from "~/paraglide/messages";

/*
 * A legal page: plain server-rendered HTML (the routes set `hydrate: false`), so it uses plain
 * anchors rather than router links and has no client-side behaviour at all.
 *
 * Section bodies are ordinary <p>, <ul>, <h3>, <table> and <a> elements; the `prose` classes below
 * style them, so the content modules stay free of presentation.
 */
const PROSE = [
  "text-base leading-7 text-slate-700",
  "[&_p]:mt-4 [&_h3]:mt-6 [&_h3]:font-semibold [&_h3]:text-slate-900",
  "[&_ul]:mt-4 [&_ul]:list-disc [&_ul]:space-y-2 [&_ul]:pl-6 [&_ol]:mt-4 [&_ol]:list-decimal [&_ol]:space-y-2 [&_ol]:pl-6",
  "[&_strong]:font-semibold [&_strong]:text-slate-900",
  "[&_a]:font-medium [&_a]:text-brand-700 [&_a]:underline [&_a]:underline-offset-2 [&_a:hover]:text-brand-900",
].join(" ");

const BUTTON =
  "inline-flex items-center gap-2 rounded-lg bg-brand-700 px-4 py-2 text-sm font-semibold text-white shadow-sm hover:bg-brand-900";

function BackToHome() {
  return (
    <a href="/" className={BUTTON}>
      <ArrowLeft className="size-4" aria-hidden />
      {m.public_legal_back_home()}
    </a>
  );
}

export function LegalDocument({ document }: { document: LegalDocumentContent }) {
  const { title, lastUpdated, summary, sections, contactEmail, related } = document;
  return (
    <div className="min-h-screen bg-white">
      <header className="border-b border-slate-200">
        <div className="mx-auto flex max-w-3xl items-center justify-between gap-4 px-4 py-3 sm:px-6">
          <a href="/" className="rounded-lg">
            <Logo />
          </a>
          <BackToHome />
        </div>
      </header>

      <main className="mx-auto max-w-3xl px-4 pt-8 pb-16 sm:px-6 sm:pt-12">
        <article aria-labelledby="document-title">
          <header>
            <p className="text-sm font-semibold tracking-wide text-brand-700 uppercase">{m.public_legal_eyebrow()}</p>
            <h1 id="document-title" className="mt-1 text-3xl font-bold tracking-tight text-slate-900 sm:text-4xl">
              {title}
            </h1>
            <p className="mt-3 text-sm text-slate-600">
              {rich(m.public_legal_last_updated, { date: <time dateTime={lastUpdated}>{formatLegalDate(lastUpdated)}</time> })}
            </p>
          </header>

          <aside
            aria-label={m.public_legal_summary_label()}
            className={`mt-8 rounded-xl border border-brand-200 bg-brand-50 p-5 sm:p-6 ${PROSE} [&>:first-child]:mt-0`}
          >
            {summary}
          </aside>

          <nav aria-label={m.public_legal_contents()} className="mt-8 rounded-xl border border-slate-200 p-5 sm:p-6">
            <p className="font-semibold text-slate-900">{m.public_legal_contents()}</p>
            <ol className="mt-3 space-y-1.5 text-sm sm:columns-2 sm:gap-8">
              {sections.map((section, index) => (
                <li key={section.heading} className="break-inside-avoid">
                  <a href={`#${sectionId(index + 1)}`} className="text-brand-700 underline-offset-2 hover:text-brand-900 hover:underline">
                    {index + 1}. {section.heading}
                  </a>
                </li>
              ))}
            </ol>
          </nav>

          {/* One set of prose styles for all sections, rather than repeating the long class list on each. */}
          <div className={`${PROSE} [&_section>div>:first-child]:mt-0`}>
            {sections.map((section, index) => {
              const id = sectionId(index + 1);
              return (
                <section
                  key={section.heading}
                  id={id}
                  aria-labelledby={`${id}-heading`}
                  className="mt-10 scroll-mt-4 border-t border-slate-200 pt-8"
                >
                  <h2 id={`${id}-heading`} className="text-xl font-semibold tracking-tight text-slate-900 sm:text-2xl">
                    {index + 1}. {section.heading}
                  </h2>
                  <div className="mt-3">{section.body}</div>
                </section>
              );
            })}
          </div>
        </article>

        <footer className="mt-12 flex flex-col gap-4 border-t border-slate-200 pt-8 text-sm text-slate-600 sm:flex-row sm:items-center sm:justify-between">
          <p>
            {rich(m.public_legal_footer, {
              email: (
                <a href={`mailto:${contactEmail}`} className="font-medium text-brand-700 underline underline-offset-2 hover:text-brand-900">
                  {contactEmail}
                </a>
              ),
              related: (
                <a href={related.href} className="font-medium text-brand-700 underline underline-offset-2 hover:text-brand-900">
                  {related.label}
                </a>
              ),
            })}
          </p>
          <div className="shrink-0">
            <BackToHome />
          </div>
        </footer>
      </main>
    </div>
  );
}

/** Title, description, canonical link and language alternates of a legal page (the address comes from its loader). */
export function legalPageMeta(document: LegalDocumentContent, loaderData: { canonical: string } | undefined) {
  return [
    { title: `${document.title} | Jumbe` },
    { name: "description", content: document.description },
    ...(loaderData ? languageLinks(loaderData.canonical) : []),
  ];
}
