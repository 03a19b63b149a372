import { m } from "~/paraglide/messages";
import { rich } from "./blocks";
import { sectionId, type LegalDocumentContent, type LegalSection } from "./types";

/*
 * Jumbe's Terms of Service. The rules it states and that the product must keep: fee changes with
 * 30 days' notice; fees non-refundable except as the law requires; Kenyan law governs; KES prices,
 * a prepaid wallet or postpaid invoices, paid by M-Pesa, card or bank; the developer API allows
 * 1000 requests a minute per key (app/.server/adapters/api-v1/usage.ts); eTIMS invoices and records kept 5
 * years; Jumbe processes customers' contacts as a processor under the Data Protection Act, 2019,
 * and marketing messages need the recipient's opt-in and honour opt-out. Change both together.
 *
 * The words are in app/messages/public (keys public_terms_*), one message a paragraph or list item,
 * in the request's language: everything here is built when the page is drawn.
 */

const LEGAL_EMAIL = "legal@jumbe.co.ke";
const SUPPORT_EMAIL = "support@jumbe.co.ke";

const see = (number: number) => <a href={`#${sectionId(number)}`}>{m.public_legal_section_link({ number })}</a>;
const legalEmail = () => <a href={`mailto:${LEGAL_EMAIL}`}>{LEGAL_EMAIL}</a>;
const supportEmail = () => <a href={`mailto:${SUPPORT_EMAIL}`}>{SUPPORT_EMAIL}</a>;
const privacyPolicy = () => <a href="/privacy-policy">{m.public_privacy_title()}</a>;

const sections = (): LegalSection[] => [
  {
    heading: m.public_terms_about_heading(),
    body: (
      <>
        <p>{rich(m.public_terms_about_p1, { policy: privacyPolicy() })}</p>
        <p>{m.public_terms_about_p2()}</p>
        <p>{m.public_terms_about_p3()}</p>
        <p>{m.public_terms_about_p4()}</p>
      </>
    ),
  },
  {
    heading: m.public_terms_account_heading(),
    body: (
      <>
        <ul>
          <li>{m.public_terms_account_li1()}</li>
          <li>{m.public_terms_account_li2()}</li>
          <li>{m.public_terms_account_li3()}</li>
          <li>{rich(m.public_terms_account_li4, { email: supportEmail() })}</li>
        </ul>
      </>
    ),
  },
  {
    heading: m.public_terms_platform_heading(),
    body: (
      <>
        <p>{m.public_terms_platform_p1()}</p>
        <ul>
          <li>{m.public_terms_platform_li1()}</li>
          <li>{m.public_terms_platform_li2()}</li>
          <li>{m.public_terms_platform_li3()}</li>
        </ul>
        <p>{m.public_terms_platform_p2()}</p>
      </>
    ),
  },
  {
    heading: m.public_terms_use_heading(),
    body: (
      <>
        <p>{m.public_terms_use_must()}</p>
        <ul>
          <li>{m.public_terms_use_must_li1()}</li>
          <li>{m.public_terms_use_must_li2()}</li>
          <li>{m.public_terms_use_must_li3()}</li>
          <li>{m.public_terms_use_must_li4()}</li>
        </ul>
        <p>{m.public_terms_use_must_not()}</p>
        <ul>
          <li>{m.public_terms_use_must_not_li1()}</li>
          <li>{m.public_terms_use_must_not_li2()}</li>
          <li>{m.public_terms_use_must_not_li3()}</li>
          <li>{m.public_terms_use_must_not_li4()}</li>
          <li>{m.public_terms_use_must_not_li5()}</li>
        </ul>
        <p>{rich(m.public_terms_use_p_breach, { section: see(9) })}</p>
      </>
    ),
  },
  {
    heading: m.public_terms_fees_heading(),
    body: (
      <>
        <h3>{m.public_terms_fees_prices_heading()}</h3>
        <p>{m.public_terms_fees_prices_p()}</p>
        <h3>{m.public_terms_fees_billing_heading()}</h3>
        <ul>
          <li>
            <strong>{m.public_terms_fees_prepaid_label()}</strong> {m.public_terms_fees_prepaid_text()}
          </li>
          <li>
            <strong>{m.public_terms_fees_postpaid_label()}</strong> {m.public_terms_fees_postpaid_text()}
          </li>
        </ul>
        <p>{m.public_terms_fees_etims_p()}</p>
        <p>{m.public_terms_fees_overdue_p()}</p>
        <h3>{m.public_terms_fees_changes_heading()}</h3>
        <p>{rich(m.public_terms_fees_changes_p, { notice: <strong>{m.public_terms_fees_changes_notice()}</strong> })}</p>
        <h3>{m.public_terms_fees_refunds_heading()}</h3>
        <p>{rich(m.public_terms_fees_refunds_p, { rule: <strong>{m.public_terms_fees_refunds_rule()}</strong> })}</p>
      </>
    ),
  },
  {
    heading: m.public_terms_data_heading(),
    body: (
      <>
        <p>{rich(m.public_terms_data_p1, { policy: privacyPolicy() })}</p>
        <ul>
          <li>{m.public_terms_data_li1()}</li>
          <li>{m.public_terms_data_li2()}</li>
          <li>{rich(m.public_terms_data_li3, { link: <a href="/privacy-policy#section-9">{m.public_terms_data_li3_link()}</a> })}</li>
          <li>{m.public_terms_data_li4()}</li>
          <li>{m.public_terms_data_li5()}</li>
          <li>{m.public_terms_data_li6()}</li>
          <li>{m.public_terms_data_li7()}</li>
          <li>{m.public_terms_data_li8()}</li>
        </ul>
        <p>{m.public_terms_data_p2()}</p>
        <p>{m.public_terms_data_p3()}</p>
      </>
    ),
  },
  {
    heading: m.public_terms_availability_heading(),
    body: (
      <>
        <p>{m.public_terms_availability_p1()}</p>
        <p>{m.public_terms_availability_p2()}</p>
        <p>{rich(m.public_terms_availability_p3, { email: supportEmail() })}</p>
      </>
    ),
  },
  {
    heading: m.public_terms_ip_heading(),
    body: (
      <>
        <p>{m.public_terms_ip_p1()}</p>
        <p>{m.public_terms_ip_p2()}</p>
      </>
    ),
  },
  {
    heading: m.public_terms_closing_heading(),
    body: (
      <>
        <p>{rich(m.public_terms_closing_p1, { email: supportEmail() })}</p>
        <p>{rich(m.public_terms_closing_p2, { section: see(4) })}</p>
        <p>{m.public_terms_closing_p3()}</p>
      </>
    ),
  },
  {
    heading: m.public_terms_liability_heading(),
    body: (
      <>
        <p>{m.public_terms_liability_p1()}</p>
        <p>{m.public_terms_liability_p2()}</p>
        <ul>
          <li>{m.public_terms_liability_li1()}</li>
          <li>{m.public_terms_liability_li2()}</li>
        </ul>
        <p>{m.public_terms_liability_p3()}</p>
        <p>{m.public_terms_liability_p4()}</p>
      </>
    ),
  },
  {
    heading: m.public_terms_law_heading(),
    body: (
      <>
        <p>{rich(m.public_terms_law_p1, { laws: <strong>{m.public_terms_law_p1_laws()}</strong>, email: legalEmail() })}</p>
        <p>{m.public_terms_law_p2()}</p>
        <p>{rich(m.public_terms_law_p3, { email: legalEmail() })}</p>
      </>
    ),
  },
];

export const termsOfService: LegalDocumentContent = {
  get title() {
    return m.public_terms_title();
  },
  get description() {
    return m.public_terms_description();
  },
  path: "/terms-of-service",
  lastUpdated: "2026-11-22",
  contactEmail: LEGAL_EMAIL,
  get related() {
    return { label: m.public_privacy_title(), href: "/privacy-policy" };
  },
  get summary() {
    return (
      <>
        <p className="font-semibold text-slate-900">{m.public_legal_short_version()}</p>
        <ul>
          <li>{m.public_terms_summary_li1()}</li>
          <li>{m.public_terms_summary_li2()}</li>
          <li>{m.public_terms_summary_li3()}</li>
          <li>{m.public_terms_summary_li4()}</li>
        </ul>
      </>
    );
  },
  get sections() {
    return sections();
  },
};
