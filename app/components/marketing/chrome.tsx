import { ArrowUp, Mail, MapPin, Menu, MessageCircle, Phone } from "~/components/ui/icons";
import { LanguageSwitcher } from "~/components/ui/language-switcher";
import { Logo } from "~/components/ui/logo";
import { m } from "~/paraglide/messages";
import { navLinks } from "./content";

export interface LandingLinks {
  appUrl: string;
  salesEmail: string;
  supportEmail: string;
  supportPhone: string;
  whatsappChatUrl: string;
}

const primaryButton =
  "inline-flex min-h-11 items-center justify-center rounded-lg bg-brand-700 px-5 py-2.5 text-sm font-semibold text-white shadow-sm hover:bg-brand-900";

/**
 * The fixed navbar. app/assets/landing.js sets data-compact="true" past 10 px of scroll; the page keeps
 * room for the full height, so turning compact never shifts the content. On small screens the section
 * links sit in a native <details> menu, which works without JavaScript.
 */
export function Navbar({ appUrl }: { appUrl: string }) {
  const links = navLinks();
  return (
    <header
      data-navbar
      data-compact="false"
      className="group fixed inset-x-0 top-0 z-40 border-b border-transparent bg-white/95 transition-[box-shadow,border-color] data-[compact=true]:border-slate-200 data-[compact=true]:shadow-md"
    >
      <div className="mx-auto flex h-16 max-w-6xl items-center justify-between gap-4 px-4 transition-[height] group-data-[compact=true]:h-14 sm:px-6">
        <a href="/" className="rounded-lg" aria-label={m.public_nav_home_label()}>
          <Logo />
        </a>
        <nav aria-label={m.public_nav_main_label()} className="hidden lg:block">
          <ul className="flex items-center gap-1 text-sm font-medium text-slate-700">
            {links.map((link) => (
              <li key={link.href}>
                <a href={link.href} className="rounded-lg px-3 py-2 hover:bg-slate-100 hover:text-slate-900">
                  {link.label}
                </a>
              </li>
            ))}
          </ul>
        </nav>
        <div className="flex items-center gap-2">
          <a
            href={`${appUrl}/login`}
            className="hidden min-h-11 items-center rounded-lg px-3 text-sm font-semibold text-slate-700 hover:bg-slate-100 sm:inline-flex"
          >
            {m.public_nav_sign_in()}
          </a>
          <a href={`${appUrl}/signup`} className={primaryButton}>
            {m.public_cta_get_started()}
          </a>
          <details data-mobile-menu className="relative lg:hidden">
            <summary
              aria-label={m.public_nav_menu_label()}
              className="flex size-11 items-center justify-center rounded-lg text-slate-700 hover:bg-slate-100"
            >
              <Menu className="size-6" aria-hidden />
            </summary>
            <nav
              aria-label={m.public_nav_sections_label()}
              className="absolute right-0 mt-2 w-56 rounded-xl border border-slate-200 bg-white p-2 shadow-lg"
            >
              <ul className="text-base font-medium text-slate-700">
                {links.map((link) => (
                  <li key={link.href}>
                    <a href={link.href} className="block rounded-lg px-3 py-2.5 hover:bg-slate-100">
                      {link.label}
                    </a>
                  </li>
                ))}
                <li className="mt-1 border-t border-slate-200 pt-1 sm:hidden">
                  <a href={`${appUrl}/login`} className="block rounded-lg px-3 py-2.5 hover:bg-slate-100">
                    {m.public_nav_sign_in()}
                  </a>
                </li>
              </ul>
            </nav>
          </details>
        </div>
      </div>
    </header>
  );
}

export function Footer({ links }: { links: LandingLinks }) {
  const phoneHref = `tel:${links.supportPhone.replace(/[^\d+]/g, "")}`;
  const linkClass = "inline-block py-1 hover:text-white hover:underline";
  return (
    <footer className="bg-slate-900 text-sm text-slate-300">
      <div className="mx-auto grid max-w-6xl gap-10 px-4 py-14 sm:px-6 md:grid-cols-4">
        <div className="md:col-span-1">
          <Logo className="[&>span:last-child]:text-white" />
          <p className="mt-4 leading-relaxed">{m.public_footer_blurb()}</p>
        </div>
        <div>
          <h2 className="font-semibold text-white">{m.public_footer_product()}</h2>
          <ul className="mt-3 space-y-1">
            {navLinks()
              .slice(0, 4)
              .map((link) => (
                <li key={link.href}>
                  <a href={link.href} className={linkClass}>
                    {link.label}
                  </a>
                </li>
              ))}
          </ul>
        </div>
        <div>
          <h2 className="font-semibold text-white">{m.public_footer_company()}</h2>
          <ul className="mt-3 space-y-1">
            <li>
              <a href="#about" className={linkClass}>
                {m.public_nav_about()}
              </a>
            </li>
            <li>
              <a href="#faq" className={linkClass}>
                {m.public_nav_faq()}
              </a>
            </li>
            <li>
              <a href="/privacy-policy" className={linkClass}>
                {m.public_privacy_title()}
              </a>
            </li>
            <li>
              <a href="/terms-of-service" className={linkClass}>
                {m.public_terms_title()}
              </a>
            </li>
          </ul>
        </div>
        <div>
          <h2 className="font-semibold text-white">{m.public_footer_contact()}</h2>
          <ul className="mt-3 space-y-1">
            <li>
              <a href={`mailto:${links.salesEmail}`} className={`${linkClass} inline-flex items-center gap-2`}>
                <Mail className="size-4" aria-hidden />
                <span>{m.public_footer_sales({ email: links.salesEmail })}</span>
              </a>
            </li>
            <li>
              <a href={`mailto:${links.supportEmail}`} className={`${linkClass} inline-flex items-center gap-2`}>
                <Mail className="size-4" aria-hidden />
                <span>{m.public_footer_support({ email: links.supportEmail })}</span>
              </a>
            </li>
            <li>
              <a href={phoneHref} className={`${linkClass} inline-flex items-center gap-2`}>
                <Phone className="size-4" aria-hidden />
                <span>{links.supportPhone}</span>
              </a>
            </li>
            <li>
              <a href={links.whatsappChatUrl} target="_blank" rel="noopener" className={`${linkClass} inline-flex items-center gap-2`}>
                <MessageCircle className="size-4" aria-hidden />
                <span>{m.public_footer_whatsapp()}</span>
              </a>
            </li>
            <li className="inline-flex items-center gap-2 py-1">
              <MapPin className="size-4" aria-hidden />
              <span>{m.public_footer_location()}</span>
            </li>
          </ul>
        </div>
      </div>
      <div className="border-t border-slate-800">
        <div className="mx-auto flex max-w-6xl flex-wrap items-center justify-between gap-4 px-4 py-6 sm:px-6">
          <p className="text-slate-400">{m.public_footer_copyright({ year: new Date().getFullYear() })}</p>
          <LanguageSwitcher className="text-slate-300" />
        </div>
      </div>
    </footer>
  );
}

/**
 * The floating WhatsApp button (opens a chat in a new tab) and the back-to-top button, which
 * app/assets/landing.js shows past 500 px of scroll (data-visible="true"). On a phone or small
 * tablet, where a floating button would sit over the page's own links and buttons, they are a row
 * at the very bottom of the page instead (under the footer, on its colour); from md up they float.
 */
export function FloatingActions({ whatsappChatUrl }: { whatsappChatUrl: string }) {
  return (
    <div className="flex items-center justify-end gap-3 bg-slate-900 px-4 pb-6 md:fixed md:right-6 md:bottom-6 md:z-30 md:flex-col md:bg-transparent md:p-0">
      <a
        href="#top"
        data-back-to-top
        data-visible="false"
        aria-label={m.public_back_to_top()}
        className="invisible flex size-12 items-center justify-center rounded-full border border-slate-200 bg-white text-slate-700 opacity-0 shadow-lg transition-opacity hover:bg-slate-50 data-[visible=true]:visible data-[visible=true]:opacity-100"
      >
        <ArrowUp className="size-5" aria-hidden />
      </a>
      <a
        href={whatsappChatUrl}
        target="_blank"
        rel="noopener"
        data-whatsapp
        aria-label={m.public_whatsapp_chat_label()}
        className="flex size-14 items-center justify-center rounded-full bg-[#128c4a] text-white shadow-lg hover:bg-brand-900"
      >
        <svg viewBox="0 0 24 24" width="28" height="28" fill="currentColor" aria-hidden>
          <path d="M12 2a10 10 0 0 0-8.6 15.1L2 22l5-1.3A10 10 0 1 0 12 2Zm0 18.2a8.2 8.2 0 0 1-4.2-1.2l-.3-.2-3 .8.8-2.9-.2-.3A8.2 8.2 0 1 1 12 20.2Zm4.5-6.1c-.2-.1-1.5-.7-1.7-.8-.2-.1-.4-.1-.6.1l-.8 1c-.1.2-.3.2-.5.1a6.7 6.7 0 0 1-3.3-2.9c-.3-.4.3-.4.7-1.3.1-.2 0-.3 0-.4l-.8-1.8c-.2-.5-.4-.4-.6-.4h-.5a1 1 0 0 0-.7.3 3 3 0 0 0-.9 2.2 5.2 5.2 0 0 0 1.1 2.7 11.8 11.8 0 0 0 4.5 4c1.7.7 2.4.8 3.2.6.5-.1 1.5-.6 1.7-1.2.2-.6.2-1.1.2-1.2-.1-.1-.3-.2-.5-.3Z" />
        </svg>
      </a>
    </div>
  );
}
