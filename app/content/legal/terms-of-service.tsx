import { sectionId, type LegalDocumentContent, type LegalSection } from "./types";

/*
 * Jumbe's Terms of Service. The rules it states and that the product must keep: fee changes with
 * 30 days' notice; fees non-refundable except as the law requires; Kenyan law governs; KES prices,
 * a prepaid wallet or postpaid invoices, paid by M-Pesa, card or bank; the developer API allows
 * 1000 requests a minute per key (app/.server/adapters/api-v1/usage.ts); eTIMS invoices and records kept 5
 * years; Jumbe processes customers' contacts as a processor under the Data Protection Act, 2019,
 * and marketing messages need the recipient's opt-in and honour opt-out. Change both together.
 */

const LEGAL_EMAIL = "legal@jumbe.co.ke";
const SUPPORT_EMAIL = "support@jumbe.co.ke";

const see = (number: number) => <a href={`#${sectionId(number)}`}>section {number}</a>;
const legalEmail = <a href={`mailto:${LEGAL_EMAIL}`}>{LEGAL_EMAIL}</a>;
const privacyPolicy = <a href="/privacy-policy">Privacy Policy</a>;

const sections: LegalSection[] = [
  {
    heading: "About these terms",
    body: (
      <>
        <p>
          These terms are the agreement between Jumbe, of Nairobi, Kenya (“Jumbe”, “we”, “us”), and the organisation or business that opens
          a Jumbe account (“you”). They cover the Jumbe dashboard, the developer API and everything else we provide as part of the service.
          Our {privacyPolicy} explains how we handle personal data and forms part of these terms.
        </p>
        <p>
          You accept these terms when you tick the box at sign-up or start using Jumbe. If you accept them for an organisation, you confirm
          that you have authority to bind it. If your organisation has signed an order form or enterprise agreement with us, that document
          prevails where it differs from these terms.
        </p>
        <p>Jumbe is a service for organisations and is not for anyone under 16.</p>
        <p>
          We may update these terms. We tell you of material changes by e-mail and in the dashboard at least 30 days before they take
          effect; if you do not agree, you can close your account before then.
        </p>
      </>
    ),
  },
  {
    heading: "Your account",
    body: (
      <>
        <ul>
          <li>
            Give accurate details when you sign up and keep them up to date. We verify your e-mail address with a 6-digit code before the
            account can be used.
          </li>
          <li>
            Keep passwords and API keys secret. Treat an API key like a password, and regenerate it from the Developers page if it may have
            been exposed.
          </li>
          <li>
            You are responsible for what happens in your account, including what your staff and your integrations do with it. Your activity
            log shows sign-ins and changes.
          </li>
          <li>
            Tell us at once at <a href={`mailto:${SUPPORT_EMAIL}`}>{SUPPORT_EMAIL}</a> if you suspect someone has used your account without
            permission. We may sign sessions out or ask for a password reset to protect the account.
          </li>
        </ul>
      </>
    ),
  },
  {
    heading: "The WhatsApp Business Platform",
    body: (
      <>
        <p>
          Jumbe sends and receives messages through Meta’s WhatsApp Business Platform, using the WhatsApp Cloud API. You connect your own
          WhatsApp Business account through Meta’s Embedded Signup, and you must accept and follow Meta’s WhatsApp Business terms and
          policies, including the WhatsApp Business Messaging Policy and Commerce Policy.
        </p>
        <ul>
          <li>
            Meta, not Jumbe, decides whether to approve message templates, verify phone numbers and display names, and what quality rating
            and messaging limits a number has. Meta may restrict or ban a number that breaks its policies.
          </li>
          <li>
            Messages you start must use a template Meta has approved. Free-form replies are possible only within the customer service window
            Meta allows after a contact’s last message.
          </li>
          <li>Your WhatsApp Business account and phone number stay yours. You can disconnect them from Jumbe at any time.</li>
        </ul>
        <p>
          We are not responsible for Meta’s decisions or for interruptions of the WhatsApp Business Platform, but we will help you deal with
          them.
        </p>
      </>
    ),
  },
  {
    heading: "Acceptable use and messaging rules",
    body: (
      <>
        <p>You must:</p>
        <ul>
          <li>have each contact’s opt-in before you message them, telling them clearly who you are and what you will send;</li>
          <li>include in every marketing message a free, simple way to opt out, and honour opt-outs promptly;</li>
          <li>
            follow the Data Protection Act, 2019 and its Regulations, the Kenya Information and Communications (Consumer Protection)
            Regulations, 2010, the rules of your sector and the laws of every country you message;
          </li>
          <li>send marketing messages at reasonable hours; we recommend between 07:00 and 19:00 East Africa Time.</li>
        </ul>
        <p>You must not:</p>
        <ul>
          <li>send spam or messages to people who have not agreed to receive them or have opted out;</li>
          <li>
            send content that is unlawful, fraudulent, misleading, threatening or hateful, or that impersonates anyone or tries to obtain
            passwords, PINs or payment details;
          </li>
          <li>send sensitive personal data, such as health details, without the consent and safeguards the law requires;</li>
          <li>
            try to reach another organisation’s data, probe or disrupt the service, get around our rate limits (the developer API allows
            1,000 requests a minute), or copy or reverse-engineer Jumbe;
          </li>
          <li>resell Jumbe without our written agreement.</li>
        </ul>
        <p>If you break these rules we may remove the content concerned or suspend sending, as {see(9)} explains.</p>
      </>
    ),
  },
  {
    heading: "Fees, payment and billing",
    body: (
      <>
        <h3>Prices</h3>
        <p>
          Your fees are set out in your order form or quote and on your Billing page. Prices are in Kenya shillings (KES). Where VAT
          applies, it is added at the current rate and shown on your invoice unless the price says it includes VAT.
        </p>
        <h3>Prepaid and postpaid billing</h3>
        <ul>
          <li>
            <strong>Prepaid:</strong> you top up a wallet, and each message is charged to it at your rate. You can top up by M-Pesa (a
            payment prompt on your phone, or Paybill), by card or by bank transfer. We credit the wallet once the payment is confirmed; bank
            transfers are credited after we match them to your account. Sending stops when the balance runs out.
          </li>
          <li>
            <strong>Postpaid:</strong> we invoice you monthly for your plan and any usage beyond its message quota. Pay by the due date on
            the invoice.
          </li>
        </ul>
        <p>
          We issue tax invoices through the Kenya Revenue Authority’s eTIMS system, as Kenyan law requires. Give us your KRA PIN if you need
          it on your invoices. If you dispute an invoice, tell us within 30 days of its date and pay the part you do not dispute.
        </p>
        <p>
          If an invoice is overdue, we may suspend sending after giving you at least 7 days’ notice. Your data stays available to you
          meanwhile.
        </p>
        <h3>Changes to fees</h3>
        <p>
          We give you at least <strong>30 days’ notice</strong> of any change to our fees, by e-mail and in the dashboard. The new fees
          apply from the start of your first billing period after the notice ends. If you do not accept them, you can close your account
          before they apply.
        </p>
        <h3>Refunds</h3>
        <p>
          Fees, including wallet top-ups, are <strong>non-refundable except as required by law</strong>. If we charge you in error, for
          example a duplicate M-Pesa payment or a message charged twice, we correct it by crediting your wallet or repaying you by the
          method you used.
        </p>
      </>
    ),
  },
  {
    heading: "Data protection and confidentiality",
    body: (
      <>
        <p>
          For the personal data of the people you message, you are the data controller and Jumbe is your data processor. Together with our{" "}
          {privacyPolicy}, this section is the written contract between controller and processor that the Data Protection Act, 2019 and its
          General Regulations require. Jumbe:
        </p>
        <ul>
          <li>processes that data only on your documented instructions: these terms, your settings and your use of the service;</li>
          <li>makes sure everyone who handles it is bound by confidentiality;</li>
          <li>
            protects it with the security measures described in <a href="/privacy-policy#section-9">section 9 of the Privacy Policy</a>;
          </li>
          <li>uses only the sub-processors listed there, tells you before adding or replacing one, and binds each to equivalent terms;</li>
          <li>transfers data outside Kenya only with the safeguards the Act requires;</li>
          <li>helps you answer requests from data subjects and the Office of the Data Protection Commissioner;</li>
          <li>tells you within 48 hours of becoming aware of a personal data breach affecting your data;</li>
          <li>
            deletes conversation data after about 30 days, and your remaining data when your account closes, except what the law requires us
            to keep.
          </li>
        </ul>
        <p>
          You are responsible for having a lawful basis, usually consent, for the data you give us and the messages you send, and for your
          own registration with the ODPC where the law requires it.
        </p>
        <p>
          Each of us keeps the other’s non-public business information confidential and uses it only for this agreement, unless the law
          requires its disclosure.
        </p>
      </>
    ),
  },
  {
    heading: "Availability, changes and support",
    body: (
      <>
        <p>
          We work to keep Jumbe available at all times and announce planned maintenance in advance where we can. Any uptime commitment and
          service credits are only those set out in your order form. Jumbe depends on Meta, Safaricom and our hosting providers, and we are
          not responsible for their outages.
        </p>
        <p>
          We improve Jumbe continually and may change or withdraw features. If a change materially reduces what you pay for, we tell you at
          least 30 days in advance.
        </p>
        <p>
          For help, write to <a href={`mailto:${SUPPORT_EMAIL}`}>{SUPPORT_EMAIL}</a>.
        </p>
      </>
    ),
  },
  {
    heading: "Intellectual property and your content",
    body: (
      <>
        <p>
          Your templates, contact lists, messages, logos and other content remain yours. You give us permission to host, copy, process and
          transmit them only as needed to provide Jumbe to you, and you confirm that you have the right to use them.
        </p>
        <p>
          Jumbe’s software, design, documentation and brand belong to us or our licensors. While your account is open, you may use them only
          to run your own messaging through Jumbe, including through our developer API as documented. If you send us suggestions, we may use
          them without obligation to you.
        </p>
      </>
    ),
  },
  {
    heading: "Suspension and closing your account",
    body: (
      <>
        <p>
          You can close your account at any time by writing to <a href={`mailto:${SUPPORT_EMAIL}`}>{SUPPORT_EMAIL}</a>, subject to any
          minimum term in your order form.
        </p>
        <p>
          We may suspend sending or access straight away if your use breaks the messaging rules in {see(4)} and risks harm, threatens the
          security of Jumbe or others, or if Meta or the law requires it. In other cases we give you notice and at least 14 days to put
          things right first. Either of us may end the agreement if the other seriously breaches it and does not remedy the breach within 30
          days of notice.
        </p>
        <p>
          Before your account closes, you can export your data. After closure we delete it as our Privacy Policy describes, keeping billing
          records for 5 years as tax law requires. Fees already paid, including any wallet balance, are non-refundable except as required by
          law.
        </p>
      </>
    ),
  },
  {
    heading: "Warranties, liability and indemnity",
    body: (
      <>
        <p>
          We provide Jumbe with reasonable skill and care. Otherwise, and as far as the law allows, we provide it as it is: we cannot
          promise that every message will be delivered, because delivery depends on Meta, mobile networks and your contacts’ phones.
        </p>
        <p>As far as the law allows:</p>
        <ul>
          <li>neither of us is liable for indirect or consequential loss, or for loss of profit, revenue or goodwill;</li>
          <li>
            our total liability under these terms in any 12 months is limited to the fees you paid us in the 12 months before the claim
            arose.
          </li>
        </ul>
        <p>
          Nothing in these terms limits liability that cannot be limited under Kenyan law, including for fraud, for death or personal injury
          caused by negligence, or your rights under the Consumer Protection Act, 2012 where it applies.
        </p>
        <p>
          You will compensate us for claims by third parties, and fines by regulators, that arise from the content you send or from
          messaging people without a lawful basis.
        </p>
      </>
    ),
  },
  {
    heading: "Governing law, disputes and contact",
    body: (
      <>
        <p>
          These terms are governed by the <strong>laws of Kenya</strong>. If a dispute arises, write to us at {legalEmail}; we will try in
          good faith to settle it within 30 days. If we cannot, the courts of Kenya have exclusive jurisdiction, and either of us may ask
          them for urgent relief at any time.
        </p>
        <p>
          Neither of us is responsible for delays caused by events beyond reasonable control, such as national network or power failures. If
          a court finds part of these terms unenforceable, the rest still applies. You may not transfer this agreement without our written
          consent.
        </p>
        <p>
          We send notices to the e-mail address on your account. Send notices to us at {legalEmail}, or to Jumbe, Legal, Nairobi, Kenya.
        </p>
      </>
    ),
  },
];

export const termsOfService: LegalDocumentContent = {
  title: "Terms of Service",
  description:
    "The terms for using Jumbe's WhatsApp Business messaging platform: accounts, messaging rules, fees in KES, data protection, liability and Kenyan governing law.",
  path: "/terms-of-service",
  lastUpdated: "2026-11-22",
  contactEmail: LEGAL_EMAIL,
  related: { label: "Privacy Policy", href: "/privacy-policy" },
  summary: (
    <>
      <p className="font-semibold text-slate-900">The short version</p>
      <ul>
        <li>Message only people who have opted in, give them a free way to opt out, and follow Meta’s WhatsApp policies.</li>
        <li>You own your content; for your contacts’ data you are the controller and we are your processor.</li>
        <li>Fees are in KES. We give 30 days’ notice of fee changes, and fees are non-refundable except as required by law.</li>
        <li>These terms are governed by the laws of Kenya.</li>
      </ul>
    </>
  ),
  sections,
};
