import { LegalTable } from "./blocks";
import { sectionId, type LegalDocumentContent, type LegalSection } from "./types";

/*
 * Jumbe's Privacy Policy. The facts it states and that the code must keep true: conversation data
 * is kept about 30 days; the service is not for users under 16; passwords are stored as Argon2id
 * hashes, one-time codes and session tokens as keyed hashes, WhatsApp tokens encrypted
 * (app/.server/infrastructure/security/crypto.ts); and data subjects' rights under Kenya's Data Protection Act,
 * 2019 and its General Regulations, 2021. Change the code and this text together.
 */

const PRIVACY_EMAIL = "privacy@jumbe.co.ke";
const ODPC_URL = "https://www.odpc.go.ke";

const see = (number: number) => <a href={`#${sectionId(number)}`}>section {number}</a>;
const privacyEmail = <a href={`mailto:${PRIVACY_EMAIL}`}>{PRIVACY_EMAIL}</a>;

const sections: LegalSection[] = [
  {
    heading: "Who we are and what this policy covers",
    body: (
      <>
        <p>
          Jumbe is a WhatsApp Business messaging platform run from Nairobi, Kenya (“Jumbe”, “we”, “us”). Government agencies, banks,
          enterprises and smaller businesses across Africa use it to connect a WhatsApp Business account, manage message templates, send
          campaigns and broadcasts, and chat with their own customers.
        </p>
        <p>
          This policy explains what personal data we handle, why, who we share it with, how long we keep it and what rights you have. It
          covers:
        </p>
        <ul>
          <li>people who sign up for and use Jumbe on behalf of an organisation (“account holders”);</li>
          <li>visitors to our website;</li>
          <li>
            people who send WhatsApp messages to, or receive them from, an organisation that uses Jumbe (“contacts”). For them, the
            organisation’s own privacy notice comes first: see {see(2)}.
          </li>
        </ul>
        <p>
          We follow Kenya’s <strong>Data Protection Act, 2019</strong> and the Data Protection (General) Regulations, 2021. As section 18 of
          the Act requires, Jumbe is registered with the <strong>Office of the Data Protection Commissioner (ODPC)</strong> as both a data
          controller and a data processor.
        </p>
        <p>To ask about this policy or your data, write to {privacyEmail}, or to Jumbe, Privacy, Nairobi, Kenya.</p>
      </>
    ),
  },
  {
    heading: "Our role: controller and processor",
    body: (
      <>
        <p>
          The Act distinguishes the “data controller”, who decides why and how personal data is used, from the “data processor”, who handles
          it on the controller’s behalf. Jumbe is each of these for different data.
        </p>
        <h3>Jumbe is the controller of account, billing and website data</h3>
        <p>
          We decide how we use the details of account holders, the billing and payment records of the organisations we serve, and the
          technical data from visits to our website. Questions about this data come to us.
        </p>
        <h3>Your customer organisation is the controller of its contacts’ data</h3>
        <p>
          When an organisation uses Jumbe to message its customers, the organisation decides whom to message, what to say and what to do
          with the replies. It is the controller of its contacts’ phone numbers, conversations and related records, and Jumbe is its
          processor. We use that data only on the organisation’s documented instructions, set out in our{" "}
          <a href="/terms-of-service">Terms of Service</a>, which include the written controller–processor terms the Regulations require. We
          never use it for our own purposes, never sell it and never use it to advertise to anyone.
        </p>
        <p>
          If you are a contact of an organisation that messages you through Jumbe, please read that organisation’s privacy notice and send
          requests about your data to it first. If you write to us instead, we pass your request to the organisation and help it respond.
        </p>
        <h3>WhatsApp’s own role</h3>
        <p>
          Meta, which provides WhatsApp, also processes data as the operator of WhatsApp itself, under WhatsApp’s own terms and privacy
          policy. Those apply to everyone who uses WhatsApp, whether or not an organisation uses Jumbe.
        </p>
      </>
    ),
  },
  {
    heading: "The personal data we collect",
    body: (
      <>
        <h3>When you create and use an account</h3>
        <ul>
          <li>Your first and last name, e-mail address, organisation name and, if you give it, your phone number.</li>
          <li>Your password, which we never store: we keep only an argon2id hash of it.</li>
          <li>
            The 6-digit code we e-mail to verify your address (and any password-reset code). We store only a hash of each code, and it
            expires after 10 minutes.
          </li>
          <li>Your role, your profile details and the date you accepted our terms.</li>
        </ul>
        <h3>When you connect WhatsApp</h3>
        <p>
          You connect a WhatsApp Business account through Meta’s Embedded Signup. We then receive your WhatsApp Business account ID,
          business ID, phone number and display name, the number’s status and quality rating, and an access token from Meta. We store the
          token encrypted. We never see your Facebook password.
        </p>
        <h3>When you use messaging features</h3>
        <p>
          Message templates, campaigns, broadcasts, contact lists and conversations hold personal data about your contacts. We process that
          data for your organisation as its processor: {see(5)} describes it.
        </p>
        <h3>Billing and payments</h3>
        <ul>
          <li>
            Your plan, wallet balance and its ledger of top-ups and message charges, invoices, and your KRA PIN if you give it for tax
            invoices.
          </li>
          <li>
            For <strong>M-Pesa</strong> payments, processed by Safaricom: the phone number that paid, the amount, the M-Pesa receipt number
            and the time.
          </li>
          <li>
            For <strong>card</strong> payments: a payment reference and the result. Card details are entered with our card payment provider;
            Jumbe never sees or stores your full card number.
          </li>
          <li>For bank transfers: the bank reference, amount and date.</li>
        </ul>
        <h3>Developer tools</h3>
        <p>
          API keys (stored as a hash for checking, and encrypted where the dashboard must show them again), the webhook address you
          configure, and records of API requests (time, endpoint, result and IP address).
        </p>
        <h3>Activity and security records</h3>
        <p>
          Your organisation’s activity log records sign-ins, changes to templates, billing, settings and your profile, and security events,
          with the time, IP address and browser (user agent). Each signed-in session is stored with its IP address, browser and time of last
          use. We also keep short-lived counters per IP address and per account to limit repeated sign-in, sign-up and code attempts.
        </p>
        <h3>Website visits and cookies</h3>
        <p>
          Our servers log each request (IP address, page, time and browser) to keep the service running and secure. The demo chat on our
          home page runs only in your browser: what you type there is never sent to us.
        </p>
        <p>We use only cookies that the service needs to work:</p>
        <ul>
          <li>a session cookie that keeps you signed in (HttpOnly; it ends when you sign out, and lasts at most 30 days);</li>
          <li>a short-lived cookie that remembers your e-mail address between sign-up and e-mail verification;</li>
          <li>cookies that carry a one-time notice to the next page and remember display preferences such as a collapsed menu.</li>
        </ul>
        <p>We use no advertising cookies, no third-party analytics and no tracking pixels.</p>
        <h3>When you contact us</h3>
        <p>What you tell us in e-mails, WhatsApp messages or support requests, and our replies.</p>
      </>
    ),
  },
  {
    heading: "How we use personal data and our lawful bases",
    body: (
      <>
        <p>We use personal data only for these purposes, each with a lawful basis under the Act:</p>
        <LegalTable
          caption="Purposes and lawful bases"
          head={["Purpose", "Lawful basis"]}
          rows={[
            [
              "Providing Jumbe: accounts, WhatsApp connection, templates, campaigns, chat, analytics, billing and support",
              "Performing our contract with your organisation",
            ],
            [
              "Verifying e-mail addresses, protecting accounts, limiting abuse and investigating security incidents",
              "Our legitimate interest in a secure service, and our contract",
            ],
            ["Issuing tax invoices and keeping financial records", "Legal obligations under Kenyan tax law"],
            [
              "Service e-mails: verification codes, security alerts, invoices, and notice of changes to fees or terms",
              "Performing our contract",
            ],
            ["News and offers about Jumbe", "Your consent, which you can withdraw at any time"],
            ["Improving Jumbe from aggregated usage statistics that identify no one", "Our legitimate interest in improving the service"],
            ["Responding to lawful requests from courts and regulators", "Legal obligations"],
          ]}
        />
        <p>
          Every marketing e-mail we send names Jumbe as the sender and includes a free, simple way to unsubscribe, as regulation 15 of the
          General Regulations requires.
        </p>
        <p>
          We do not sell personal data. We do not use the content of conversations to profile or advertise to anyone. We make no decisions
          that have legal or similarly significant effects on you by automated means alone.
        </p>
      </>
    ),
  },
  {
    heading: "Conversation data on the WhatsApp Business Platform",
    body: (
      <>
        <p>
          Jumbe connects organisations to Meta’s WhatsApp Business Platform through the <strong>WhatsApp Cloud API</strong>. When an
          organisation sends a campaign, a broadcast or a chat reply, Jumbe passes the message to the Cloud API, and Meta delivers it. When
          a contact replies, Meta sends the message to Jumbe, and we check Meta’s signature on it before storing it.
        </p>
        <h3>What we hold for the organisation</h3>
        <ul>
          <li>
            the contact’s phone number, WhatsApp profile name and the business-scoped user ID WhatsApp assigns (some people hide their
            number);
          </li>
          <li>the content of messages and any media, with times and delivery and read status;</li>
          <li>the tags, lists and campaigns the organisation puts the contact in;</li>
          <li>records of when and how the contact opted in to messages or opted out.</li>
        </ul>
        <h3>How long we keep it</h3>
        <p>
          Conversation data (the content of messages and their media) is kept for <strong>about 30 days</strong> after a message is sent or
          received, then deleted. After that the organisation keeps only counts, such as messages sent, delivered and read, that identify no
          one.
        </p>
        <h3>Templates and consent</h3>
        <p>
          Messages an organisation starts (rather than replies to) must use a message template that Meta has reviewed and approved.
          Organisations must have a contact’s opt-in before messaging them, must include a free and simple way to opt out in every marketing
          message, and must honour opt-outs. Templates should not carry sensitive personal data, such as health details.
        </p>
        <p>
          If you no longer want messages from an organisation, follow the opt-out instruction in its message or contact the organisation.
          You can also block the business in WhatsApp at any time.
        </p>
        <h3>Encryption</h3>
        <p>
          WhatsApp encrypts messages between the contact’s phone and Meta’s Cloud API, which Meta runs for the organisation. Meta decrypts
          them there so that they can be passed, over an encrypted (TLS) connection, to Jumbe and shown to the organisation’s staff.
        </p>
      </>
    ),
  },
  {
    heading: "Who we share personal data with",
    body: (
      <>
        <p>
          We share personal data only with service providers that help us run Jumbe (our sub-processors), each bound by a written contract
          to use it only to provide their service to us and to protect it:
        </p>
        <LegalTable
          caption="Jumbe's sub-processors"
          head={["Provider", "What they do", "Where"]}
          rows={[
            [
              "Meta Platforms (WhatsApp Business Platform)",
              "Sends and receives WhatsApp messages through the Cloud API, reviews message templates, runs Embedded Signup",
              "Outside Kenya",
            ],
            ["Safaricom PLC (M-Pesa)", "Processes M-Pesa payments: the payment prompt on your phone and Paybill payments", "Kenya"],
            ["Card payment provider", "Processes card payments", "May be outside Kenya"],
            ["Hosting provider", "Runs our servers, databases and encrypted backups", "May be outside Kenya"],
            ["E-mail delivery provider", "Delivers verification codes, security alerts and invoices", "May be outside Kenya"],
          ]}
        />
        <p>
          Customer organisations can ask {privacyEmail} for the current list of sub-processors, with their names and locations. We tell them
          before we add or replace a sub-processor that handles their contacts’ data, so that they can object.
        </p>
        <p>We also disclose personal data:</p>
        <ul>
          <li>to the Kenya Revenue Authority through eTIMS, for tax invoices, as the law requires;</li>
          <li>
            to a CRM or other integration, or a webhook address, that an organisation connects: these receive data on the organisation’s
            instructions;
          </li>
          <li>
            when the law requires it, for example under a court order. We check that each request is lawful, disclose no more than it
            requires and, unless the law forbids it, tell the organisation concerned;
          </li>
          <li>
            to our professional advisers under a duty of confidentiality, or to a buyer of our business, which must protect the data as this
            policy does.
          </li>
        </ul>
        <p>
          Within Jumbe, only the staff who need it for support, billing or keeping the platform running can see personal data, under a duty
          of confidentiality.
        </p>
      </>
    ),
  },
  {
    heading: "Transfers outside Kenya",
    body: (
      <>
        <p>
          Some personal data leaves Kenya. WhatsApp messages pass through Meta’s Cloud API, which runs in Meta’s data centres outside Kenya,
          and some of our other providers (see {see(6)}) may store or process data abroad.
        </p>
        <p>
          Sections 48 to 50 of the Act and the General Regulations allow a transfer only on a proper footing. We transfer personal data
          only:
        </p>
        <ul>
          <li>
            with <strong>appropriate safeguards</strong>: a written contract that binds the recipient to data-protection clauses protecting
            the data to the standard Kenyan law requires; or
          </li>
          <li>
            where the transfer is <strong>necessary</strong> to perform a contract, such as delivering a message a contact or an
            organisation asked to send; or
          </li>
          <li>
            with <strong>consent</strong>, which the Act requires for sensitive personal data.
          </li>
        </ul>
        <p>
          We keep a record of these transfers and can give the ODPC proof of our safeguards on request. To ask about the safeguards for a
          particular transfer, write to {privacyEmail}.
        </p>
        <p>
          Because of this, organisations should not put sensitive personal data (such as health, biometric or genetic data, or religious
          beliefs) into WhatsApp messages without the consent the Act requires.
        </p>
      </>
    ),
  },
  {
    heading: "How long we keep personal data",
    body: (
      <>
        <p>
          We keep personal data only as long as we reasonably need it, as section 39 of the Act requires, and then delete or anonymise it:
        </p>
        <LegalTable
          caption="Retention periods"
          head={["Data", "How long"]}
          rows={[
            ["Conversation data (message content and media)", "About 30 days after sending or receipt; then only anonymous counts remain"],
            ["Contacts, tags and opt-in records", "Until the organisation deletes them or closes its account"],
            ["Opt-out records", "As long as needed to keep honouring the opt-out"],
            ["Account and profile data", "While the account is open, then deleted or anonymised within 90 days of closure"],
            ["Invoices, payments and M-Pesa receipts", "5 years, as the Tax Procedures Act requires, even after an account closes"],
            ["Activity log entries", "12 months"],
            ["Sessions", "Until you sign out or the session expires (at most 30 days); expired sessions are deleted automatically"],
            ["Verification and password-reset codes", "They expire after 10 minutes and are then deleted"],
            ["Website request logs and rate-limit counters", "At most 30 days"],
          ]}
        />
        <p>Copies in encrypted backups are overwritten on a rolling schedule after the live data is deleted.</p>
      </>
    ),
  },
  {
    heading: "How we protect personal data",
    body: (
      <>
        <ul>
          <li>
            Passwords are hashed with argon2id; no one at Jumbe can read them. Sign-in errors never reveal whether an e-mail address has an
            account.
          </li>
          <li>
            Verification and reset codes come from a secure random generator, are stored only as hashes, expire after 10 minutes and allow
            at most 5 wrong tries.
          </li>
          <li>Sessions use a random identifier in an HttpOnly cookie, renewed at each sign-in and deleted at sign-out.</li>
          <li>
            Stored secrets, such as WhatsApp access tokens and API keys, are encrypted with a key kept apart from the database. API keys are
            checked against a hash.
          </li>
          <li>Every message Meta sends us is checked against Meta’s signature before we trust it.</li>
          <li>
            Each organisation’s data is kept apart: our servers take the organisation from your signed-in session, never from what a browser
            sends.
          </li>
          <li>
            Data travels over encrypted connections (HTTPS). Our pages carry strict security headers, and our logs never contain passwords,
            codes, access tokens or full API keys.
          </li>
          <li>Sign-in, sign-up and code attempts are rate-limited, and your organisation’s activity log shows sign-ins and changes.</li>
        </ul>
        <h3>If something goes wrong</h3>
        <p>If a personal data breach happens despite these measures, we act under section 43 of the Act:</p>
        <ul>
          <li>
            For data we control, we notify the ODPC without delay, and within <strong>72 hours</strong> of becoming aware of the breach,
            where it poses a real risk of harm. We tell the people affected in writing as soon as reasonably practical, explaining what
            happened and what they can do to protect themselves.
          </li>
          <li>
            For data we process for an organisation, we tell the organisation within <strong>48 hours</strong> of becoming aware, with the
            details it needs to notify the ODPC and the people affected.
          </li>
          <li>We record every breach: the facts, its effects and what we did about it.</li>
        </ul>
        <p>To report a security concern, write to {privacyEmail}.</p>
      </>
    ),
  },
  {
    heading: "Your rights and how to complain",
    body: (
      <>
        <p>Under the Data Protection Act, 2019 you have the right:</p>
        <ul>
          <li>to be informed of how your personal data is used (this policy);</li>
          <li>to access the personal data we hold about you;</li>
          <li>to object to processing, and always to direct marketing;</li>
          <li>to have false or misleading data corrected;</li>
          <li>to have your data deleted;</li>
          <li>to restrict processing in some cases, for example while you contest the accuracy of your data;</li>
          <li>to receive your data in a portable, machine-readable form;</li>
          <li>not to be subject to a decision based solely on automated processing that significantly affects you;</li>
          <li>to withdraw consent at any time, without affecting what was done before.</li>
        </ul>
        <h3>How to use them</h3>
        <p>
          Write to {privacyEmail}, from the e-mail address on your account if you have one. We may ask you to confirm your identity.
          Requests are free of charge. We answer access requests within <strong>7 days</strong> and aim to complete corrections and
          deletions within the same time. If we need longer, or cannot do what you ask (for example because the law requires us to keep
          invoices for 5 years), we tell you why. You can correct most account details yourself on your Profile page.
        </p>
        <p>
          If you are a contact of an organisation that uses Jumbe, that organisation is responsible for answering your request (see {see(2)}
          ). We forward requests we receive and help it respond.
        </p>
        <h3>Complaints</h3>
        <p>
          We would like the chance to put things right, so please tell us first. You can also complain at any time to the{" "}
          <strong>Office of the Data Protection Commissioner</strong>, the regulator in Kenya, through its website{" "}
          <a href={ODPC_URL}>www.odpc.go.ke</a>.
        </p>
      </>
    ),
  },
  {
    heading: "Children",
    body: (
      <>
        <p>
          Jumbe is a service for organisations and is not for anyone <strong>under 16</strong>. We do not knowingly open accounts for, or
          collect personal data from, people under 16. If we learn that we have, we close the account and delete the data. If you believe a
          child has given us personal data, please write to {privacyEmail}.
        </p>
        <p>
          Organisations that message children through Jumbe are responsible, as controllers, for having the consent of a parent or guardian
          and for protecting the child’s interests, as the Act requires.
        </p>
      </>
    ),
  },
  {
    heading: "Changes to this policy",
    body: (
      <>
        <p>
          We update this policy when our service or the law changes. The date at the top shows when it last changed. If a change matters to
          how we use your data, we tell account holders by e-mail and in the dashboard before it takes effect. Earlier versions are
          available on request.
        </p>
        <p>Contact: {privacyEmail}, Jumbe, Nairobi, Kenya.</p>
      </>
    ),
  },
];

export const privacyPolicy: LegalDocumentContent = {
  title: "Privacy Policy",
  description:
    "How Jumbe collects, uses, shares and protects personal data on its WhatsApp Business messaging platform, and your rights under Kenya's Data Protection Act, 2019.",
  path: "/privacy-policy",
  lastUpdated: "2026-11-22",
  contactEmail: PRIVACY_EMAIL,
  related: { label: "Terms of Service", href: "/terms-of-service" },
  summary: (
    <>
      <p className="font-semibold text-slate-900">The short version</p>
      <ul>
        <li>Organisations that use Jumbe control their customers’ conversations; we handle them only on their instructions.</li>
        <li>Conversation data is kept for about 30 days, then deleted.</li>
        <li>WhatsApp messages pass through Meta’s Cloud API outside Kenya, under contractual safeguards.</li>
        <li>We never sell personal data or use it for advertising.</li>
        <li>Jumbe is not for anyone under 16.</li>
        <li>You can ask us for your data at {privacyEmail}, and complain to the Office of the Data Protection Commissioner.</li>
      </ul>
    </>
  ),
  sections,
};
