import { m } from "~/paraglide/messages";
import { LegalTable, rich } from "./blocks";
import { sectionId, type LegalDocumentContent, type LegalSection } from "./types";
import { INBOUND_WEBHOOK_DAYS, RETENTION_LIMITS } from "~/lib/retention-limits";

/*
 * Jumbe's Privacy Policy. The facts it states and that the code must keep true: message content,
 * media and logs are kept as each organisation chooses within lib/retention-limits.ts's limits
 * (their defaults and limits are read from there; decision 165), money documents as tax law asks; the service is not for users under 16; passwords are stored as Argon2id
 * hashes, one-time codes and session tokens as keyed hashes, WhatsApp tokens encrypted
 * (app/.server/infrastructure/security/crypto.ts); and data subjects' rights under Kenya's Data Protection Act,
 * 2019 and its General Regulations, 2021. Change the code and this text together.
 *
 * The words are in app/messages/public (keys public_privacy_*), one message a paragraph, list item
 * or table cell, in the request's language: everything here is built when the page is drawn.
 */

const PRIVACY_EMAIL = "privacy@jumbe.co.ke";
const ODPC_URL = "https://www.odpc.go.ke";
const ODPC_SITE = "www.odpc.go.ke";
// Meta's product, named as Meta names it in every language.
const CLOUD_API = "WhatsApp Cloud API";

/** A retention's default and limits, as the policy's table says them. */
const days = (limits: { min: number; max: number; default: number }) => ({ days: limits.default, min: limits.min, max: limits.max });

const see = (number: number) => <a href={`#${sectionId(number)}`}>{m.public_legal_section_link({ number })}</a>;
const privacyEmail = () => <a href={`mailto:${PRIVACY_EMAIL}`}>{PRIVACY_EMAIL}</a>;

const sections = (): LegalSection[] => [
  {
    heading: m.public_privacy_who_heading(),
    body: (
      <>
        <p>{m.public_privacy_who_p1()}</p>
        <p>{m.public_privacy_who_p2()}</p>
        <ul>
          <li>{m.public_privacy_who_li1()}</li>
          <li>{m.public_privacy_who_li2()}</li>
          <li>{rich(m.public_privacy_who_li3, { section: see(2) })}</li>
        </ul>
        <p>
          {rich(m.public_privacy_who_p3, {
            act: <strong>{m.public_privacy_who_p3_act()}</strong>,
            odpc: <strong>{m.public_privacy_who_p3_odpc()}</strong>,
          })}
        </p>
        <p>{rich(m.public_privacy_who_p4, { email: privacyEmail() })}</p>
      </>
    ),
  },
  {
    heading: m.public_privacy_role_heading(),
    body: (
      <>
        <p>{m.public_privacy_role_p1()}</p>
        <h3>{m.public_privacy_role_jumbe_heading()}</h3>
        <p>{m.public_privacy_role_jumbe_p()}</p>
        <h3>{m.public_privacy_role_customer_heading()}</h3>
        <p>{rich(m.public_privacy_role_customer_p1, { terms: <a href="/terms-of-service">{m.public_terms_title()}</a> })}</p>
        <p>{m.public_privacy_role_customer_p2()}</p>
        <h3>{m.public_privacy_role_whatsapp_heading()}</h3>
        <p>{m.public_privacy_role_whatsapp_p()}</p>
      </>
    ),
  },
  {
    heading: m.public_privacy_collect_heading(),
    body: (
      <>
        <h3>{m.public_privacy_collect_account_heading()}</h3>
        <ul>
          <li>{m.public_privacy_collect_account_li1()}</li>
          <li>{m.public_privacy_collect_account_li2()}</li>
          <li>{m.public_privacy_collect_account_li3()}</li>
          <li>{m.public_privacy_collect_account_li4()}</li>
        </ul>
        <h3>{m.public_privacy_collect_whatsapp_heading()}</h3>
        <p>{m.public_privacy_collect_whatsapp_p()}</p>
        <h3>{m.public_privacy_collect_messaging_heading()}</h3>
        <p>{rich(m.public_privacy_collect_messaging_p, { section: see(5) })}</p>
        <h3>{m.public_privacy_collect_billing_heading()}</h3>
        <ul>
          <li>{m.public_privacy_collect_billing_li1()}</li>
          <li>{rich(m.public_privacy_collect_billing_li2, { mpesa: <strong>M-Pesa</strong> })}</li>
          <li>{rich(m.public_privacy_collect_billing_li3, { card: <strong>{m.public_privacy_collect_billing_li3_card()}</strong> })}</li>
          <li>{m.public_privacy_collect_billing_li4()}</li>
        </ul>
        <h3>{m.public_privacy_collect_developer_heading()}</h3>
        <p>{m.public_privacy_collect_developer_p()}</p>
        <h3>{m.public_privacy_collect_activity_heading()}</h3>
        <p>{m.public_privacy_collect_activity_p()}</p>
        <h3>{m.public_privacy_collect_website_heading()}</h3>
        <p>{m.public_privacy_collect_website_p()}</p>
        <p>{m.public_privacy_collect_cookies_p()}</p>
        <ul>
          <li>{m.public_privacy_collect_cookies_li1()}</li>
          <li>{m.public_privacy_collect_cookies_li2()}</li>
          <li>{m.public_privacy_collect_cookies_li3()}</li>
        </ul>
        <p>{m.public_privacy_collect_no_tracking()}</p>
        <h3>{m.public_privacy_collect_contact_heading()}</h3>
        <p>{m.public_privacy_collect_contact_p()}</p>
      </>
    ),
  },
  {
    heading: m.public_privacy_use_heading(),
    body: (
      <>
        <p>{m.public_privacy_use_p1()}</p>
        <LegalTable
          caption={m.public_privacy_use_table_caption()}
          head={[m.public_privacy_use_table_purpose(), m.public_privacy_use_table_basis()]}
          rows={[
            [m.public_privacy_use_row1_purpose(), m.public_privacy_use_row1_basis()],
            [m.public_privacy_use_row2_purpose(), m.public_privacy_use_row2_basis()],
            [m.public_privacy_use_row3_purpose(), m.public_privacy_use_row3_basis()],
            [m.public_privacy_use_row4_purpose(), m.public_privacy_use_row4_basis()],
            [m.public_privacy_use_row5_purpose(), m.public_privacy_use_row5_basis()],
            [m.public_privacy_use_row6_purpose(), m.public_privacy_use_row6_basis()],
            [m.public_privacy_use_row7_purpose(), m.public_privacy_use_row7_basis()],
          ]}
        />
        <p>{m.public_privacy_use_p2()}</p>
        <p>{m.public_privacy_use_p3()}</p>
      </>
    ),
  },
  {
    heading: m.public_privacy_conversations_heading(),
    body: (
      <>
        <p>{rich(m.public_privacy_conversations_p1, { api: <strong>{CLOUD_API}</strong> })}</p>
        <h3>{m.public_privacy_conversations_hold_heading()}</h3>
        <ul>
          <li>{m.public_privacy_conversations_hold_li1()}</li>
          <li>{m.public_privacy_conversations_hold_li2()}</li>
          <li>{m.public_privacy_conversations_hold_li3()}</li>
          <li>{m.public_privacy_conversations_hold_li4()}</li>
        </ul>
        <h3>{m.public_privacy_conversations_retention_heading()}</h3>
        <p>
          {rich(m.public_privacy_conversations_retention_p, {
            period: <strong>{m.public_privacy_conversations_retention_period({ days: RETENTION_LIMITS.messages.default })}</strong>,
            media: RETENTION_LIMITS.media.default,
          })}
        </p>
        <p>
          {m.public_privacy_conversations_retention_choice({
            messagesMin: RETENTION_LIMITS.messages.min,
            messagesMax: RETENTION_LIMITS.messages.max,
            mediaMin: RETENTION_LIMITS.media.min,
            logsMin: RETENTION_LIMITS.logs.min,
            logsMax: RETENTION_LIMITS.logs.max,
          })}
        </p>
        <h3>{m.public_privacy_conversations_templates_heading()}</h3>
        <p>{m.public_privacy_conversations_templates_p1()}</p>
        <p>{m.public_privacy_conversations_templates_p2()}</p>
        <h3>{m.public_privacy_conversations_encryption_heading()}</h3>
        <p>{m.public_privacy_conversations_encryption_p()}</p>
      </>
    ),
  },
  {
    heading: m.public_privacy_sharing_heading(),
    body: (
      <>
        <p>{m.public_privacy_sharing_p1()}</p>
        <LegalTable
          caption={m.public_privacy_sharing_table_caption()}
          head={[m.public_privacy_sharing_table_provider(), m.public_privacy_sharing_table_role(), m.public_privacy_sharing_table_where()]}
          rows={[
            ["Meta Platforms (WhatsApp Business Platform)", m.public_privacy_sharing_meta_role(), m.public_privacy_sharing_outside_kenya()],
            ["Safaricom PLC (M-Pesa)", m.public_privacy_sharing_safaricom_role(), "Kenya"],
            [
              m.public_privacy_sharing_card_provider(),
              m.public_privacy_sharing_card_role(),
              m.public_privacy_sharing_maybe_outside_kenya(),
            ],
            [
              m.public_privacy_sharing_hosting_provider(),
              m.public_privacy_sharing_hosting_role(),
              m.public_privacy_sharing_maybe_outside_kenya(),
            ],
            [
              m.public_privacy_sharing_email_provider(),
              m.public_privacy_sharing_email_role(),
              m.public_privacy_sharing_maybe_outside_kenya(),
            ],
          ]}
        />
        <p>{rich(m.public_privacy_sharing_p2, { email: privacyEmail() })}</p>
        <p>{m.public_privacy_sharing_p3()}</p>
        <ul>
          <li>{m.public_privacy_sharing_li1()}</li>
          <li>{m.public_privacy_sharing_li2()}</li>
          <li>{m.public_privacy_sharing_li3()}</li>
          <li>{m.public_privacy_sharing_li4()}</li>
        </ul>
        <p>{m.public_privacy_sharing_p4()}</p>
      </>
    ),
  },
  {
    heading: m.public_privacy_transfers_heading(),
    body: (
      <>
        <p>{rich(m.public_privacy_transfers_p1, { section: see(6) })}</p>
        <p>{m.public_privacy_transfers_p2()}</p>
        <ul>
          <li>{rich(m.public_privacy_transfers_li1, { safeguards: <strong>{m.public_privacy_transfers_li1_safeguards()}</strong> })}</li>
          <li>{rich(m.public_privacy_transfers_li2, { necessary: <strong>{m.public_privacy_transfers_li2_necessary()}</strong> })}</li>
          <li>{rich(m.public_privacy_transfers_li3, { consent: <strong>{m.public_privacy_transfers_li3_consent()}</strong> })}</li>
        </ul>
        <p>{rich(m.public_privacy_transfers_p3, { email: privacyEmail() })}</p>
        <p>{m.public_privacy_transfers_p4()}</p>
      </>
    ),
  },
  {
    heading: m.public_privacy_retention_heading(),
    body: (
      <>
        <p>{m.public_privacy_retention_p1()}</p>
        <LegalTable
          caption={m.public_privacy_retention_table_caption()}
          head={[m.public_privacy_retention_table_data(), m.public_privacy_retention_table_period()]}
          rows={[
            [m.public_privacy_retention_row1_data(), m.public_privacy_retention_row1_period(days(RETENTION_LIMITS.messages))],
            [m.public_privacy_retention_row10_data(), m.public_privacy_retention_row10_period({ days: RETENTION_LIMITS.media.default })],
            [m.public_privacy_retention_row2_data(), m.public_privacy_retention_row2_period()],
            [m.public_privacy_retention_row3_data(), m.public_privacy_retention_row3_period()],
            [m.public_privacy_retention_row4_data(), m.public_privacy_retention_row4_period()],
            [m.public_privacy_retention_row5_data(), m.public_privacy_retention_row5_period()],
            [m.public_privacy_retention_row6_data(), m.public_privacy_retention_row6_period(days(RETENTION_LIMITS.logs))],
            [m.public_privacy_retention_row11_data(), m.public_privacy_retention_row11_period({ days: INBOUND_WEBHOOK_DAYS })],
            [m.public_privacy_retention_row7_data(), m.public_privacy_retention_row7_period()],
            [m.public_privacy_retention_row8_data(), m.public_privacy_retention_row8_period()],
            [m.public_privacy_retention_row9_data(), m.public_privacy_retention_row9_period()],
          ]}
        />
        <p>{m.public_privacy_retention_p2()}</p>
      </>
    ),
  },
  {
    heading: m.public_privacy_security_heading(),
    body: (
      <>
        <ul>
          <li>{m.public_privacy_security_li1()}</li>
          <li>{m.public_privacy_security_li2()}</li>
          <li>{m.public_privacy_security_li3()}</li>
          <li>{m.public_privacy_security_li4()}</li>
          <li>{m.public_privacy_security_li5()}</li>
          <li>{m.public_privacy_security_li6()}</li>
          <li>{m.public_privacy_security_li7()}</li>
          <li>{m.public_privacy_security_li8()}</li>
        </ul>
        <h3>{m.public_privacy_security_breach_heading()}</h3>
        <p>{m.public_privacy_security_breach_p()}</p>
        <ul>
          <li>
            {rich(m.public_privacy_security_breach_li1, { deadline: <strong>{m.public_privacy_security_breach_li1_deadline()}</strong> })}
          </li>
          <li>
            {rich(m.public_privacy_security_breach_li2, { deadline: <strong>{m.public_privacy_security_breach_li2_deadline()}</strong> })}
          </li>
          <li>{m.public_privacy_security_breach_li3()}</li>
        </ul>
        <p>{rich(m.public_privacy_security_report, { email: privacyEmail() })}</p>
      </>
    ),
  },
  {
    heading: m.public_privacy_rights_heading(),
    body: (
      <>
        <p>{m.public_privacy_rights_p1()}</p>
        <ul>
          <li>{m.public_privacy_rights_li1()}</li>
          <li>{m.public_privacy_rights_li2()}</li>
          <li>{m.public_privacy_rights_li3()}</li>
          <li>{m.public_privacy_rights_li4()}</li>
          <li>{m.public_privacy_rights_li5()}</li>
          <li>{m.public_privacy_rights_li6()}</li>
          <li>{m.public_privacy_rights_li7()}</li>
          <li>{m.public_privacy_rights_li8()}</li>
          <li>{m.public_privacy_rights_li9()}</li>
        </ul>
        <h3>{m.public_privacy_rights_how_heading()}</h3>
        <p>
          {rich(m.public_privacy_rights_how_p1, {
            email: privacyEmail(),
            deadline: <strong>{m.public_privacy_rights_how_p1_deadline()}</strong>,
          })}
        </p>
        <p>{rich(m.public_privacy_rights_how_p2, { section: see(2) })}</p>
        <h3>{m.public_privacy_rights_complaints_heading()}</h3>
        <p>
          {rich(m.public_privacy_rights_complaints_p, {
            odpc: <strong>{m.public_privacy_rights_complaints_p_odpc()}</strong>,
            website: <a href={ODPC_URL}>{ODPC_SITE}</a>,
          })}
        </p>
      </>
    ),
  },
  {
    heading: m.public_privacy_children_heading(),
    body: (
      <>
        <p>
          {rich(m.public_privacy_children_p1, {
            age: <strong>{m.public_privacy_children_p1_age()}</strong>,
            email: privacyEmail(),
          })}
        </p>
        <p>{m.public_privacy_children_p2()}</p>
      </>
    ),
  },
  {
    heading: m.public_privacy_changes_heading(),
    body: (
      <>
        <p>{m.public_privacy_changes_p1()}</p>
        <p>{rich(m.public_privacy_changes_p2, { email: privacyEmail() })}</p>
      </>
    ),
  },
];

export const privacyPolicy: LegalDocumentContent = {
  get title() {
    return m.public_privacy_title();
  },
  get description() {
    return m.public_privacy_description();
  },
  path: "/privacy-policy",
  lastUpdated: "2026-11-30",
  contactEmail: PRIVACY_EMAIL,
  get related() {
    return { label: m.public_terms_title(), href: "/terms-of-service" };
  },
  get summary() {
    return (
      <>
        <p className="font-semibold text-slate-900">{m.public_legal_short_version()}</p>
        <ul>
          <li>{m.public_privacy_summary_li1()}</li>
          <li>{m.public_privacy_summary_li2()}</li>
          <li>{m.public_privacy_summary_li3()}</li>
          <li>{m.public_privacy_summary_li4()}</li>
          <li>{m.public_privacy_summary_li5()}</li>
          <li>{rich(m.public_privacy_summary_li6, { email: privacyEmail() })}</li>
        </ul>
      </>
    );
  },
  get sections() {
    return sections();
  },
};
