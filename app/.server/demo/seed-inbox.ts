import { randomBytes, randomInt } from "node:crypto";
import { and, eq, inArray } from "drizzle-orm";
import { db } from "../infrastructure/db/client";
import { contacts, conversationEntries, conversations, mediaFiles, messages, quickReplies, users } from "../infrastructure/db/schema";
import { fileStorage } from "../infrastructure/storage";
import { messageText } from "../adapters/webhooks-in/parse";
import { demoPdf, demoScreenshotPng, demoVoiceNoteOgg } from "./seed-media";

/**
 * The demo Sacco's inbox: about 25 conversations with members on its WhatsApp number, as the
 * webhooks, the sending engine and the agents would have left them. Customers write in English,
 * Swahili and Sheng; some wrote minutes ago (their 24-hour window open), some days ago (closed);
 * some are resolved, some assigned to the team; unread counts are the inbound messages nobody has
 * read yet (read_at null). Every kind of message is there at least once: text, an image, a voice
 * note, a document (the three files stored as a download would have stored them), a location, a
 * contact card, a button tap, replies in context, reactions, the campaign's template, agents'
 * replies with their ticks and one refused by Meta (131047), internal notes and who did what.
 */

type Member = "owner" | "grace" | "brian" | "amina";
type OutStatus = "sent" | "delivered" | "read";

/** One thing that happened in a conversation, `at` minutes before the seed runs. */
type Step = { at: number; key?: string } & (
  | { in: "text"; text: string; quote?: string }
  | { in: "image"; caption?: string }
  | { in: "voice" }
  | { in: "document"; fileName: string; caption?: string; lines: string[] }
  | { in: "location"; latitude: number; longitude: number; name: string; address: string }
  | { in: "contacts"; name: string; phone: string }
  | { in: "choice"; of: string; id: string; title: string }
  | { in: "reaction"; of: string; emoji: string }
  | { out: "text"; by: Member; text: string; status?: OutStatus; quote?: string }
  | { out: "buttons"; by: Member; text: string; buttons: { id: string; title: string }[]; status?: OutStatus }
  | { out: "reaction"; by: Member; of: string; emoji: string; status?: OutStatus }
  | { out: "refused"; by: Member; text: string }
  | { note: Member; text: string }
  | { assigned: Member; by: Member }
  | { unassigned: Member; by: Member }
  | { resolved: Member }
  | { reopened: true }
);

interface DemoConversation {
  name: string;
  phone: string;
  language: "en" | "sw";
  assignee?: Member;
  /** The last this many customer messages are unread. */
  unread?: number;
  /** A member of the Nakuru campaign: the conversation starts with the campaign's template to them. */
  campaignMember?: true;
  steps: Step[];
}

const min = (n: number) => n;
const hr = (n: number) => n * 60;
const day = (n: number) => n * 24 * 60;

export const DEMO_SAVED_ANSWERS: { shortcut: string; body: string }[] = [
  {
    shortcut: "hours",
    body: "We are open Monday to Friday, 8 am to 5 pm, and Saturday, 9 am to 1 pm. Closed on Sundays and public holidays.",
  },
  {
    shortcut: "location",
    body: "Nyota Sacco, Nakuru: Kenyatta Avenue, Nyota House, ground floor. Nairobi desk: Sarit Centre, 2nd floor, Westlands.",
  },
  {
    shortcut: "mpesa",
    body: "To pay by M-Pesa: Lipa na M-Pesa, Pay Bill, business number 522522, account number your member number (e.g. NYT-20417), then the amount and your PIN. You get our SMS confirmation within minutes.",
  },
  { shortcut: "thanks", body: "Thank you for contacting Nyota Sacco. Is there anything else we can help you with?" },
  {
    shortcut: "delivery",
    body: "ATM cards and statements are ready for collection at your branch within 5 working days. Bring your ID; nobody else can collect them for you.",
  },
  {
    shortcut: "refund",
    body: "Wrong or double M-Pesa payments are refunded to the paying number within 3 working days. Please send the M-Pesa code, the amount and the date.",
  },
  { shortcut: "habari", body: "Habari! Karibu Nyota Sacco. Tunaweza kukusaidia vipi leo?" },
  {
    shortcut: "escalate",
    body: "I have passed your request to our loans officer, who will call you within one working day. Your reference is your member number.",
  },
];

const MPESA_ANSWER = DEMO_SAVED_ANSWERS.find((a) => a.shortcut === "mpesa")!.body;

export const DEMO_CONVERSATIONS: DemoConversation[] = [
  {
    name: "Wanjiku Kamau",
    phone: "+254722418093",
    language: "sw",
    unread: 2,
    steps: [
      { at: min(41), in: "text", text: "Habari, nimetuma pesa ya loan kupitia paybill 522522 lakini sijapata message ya confirmation." },
      { at: min(39), in: "image", caption: "Hii ndio message ya M-Pesa" },
    ],
  },
  {
    name: "Otieno Ochieng",
    phone: "+254733902417",
    language: "en",
    assignee: "brian",
    steps: [
      { at: hr(3), in: "text", text: "Hi, I'd like to know my loan balance. Member number NYT-20417." },
      { at: hr(3) - 3, assigned: "brian", by: "brian" },
      {
        at: hr(3) - 5,
        key: "balance",
        out: "text",
        by: "brian",
        text: "Hello Otieno, thanks for waiting. Your loan balance is KES 48,250 as at today. The next instalment of KES 4,500 is due on 15 December.",
      },
      { at: hr(3) - 9, in: "reaction", of: "balance", emoji: "👍" },
      { at: hr(3) - 10, in: "text", text: "Thanks. Can I top up the loan?" },
      {
        at: hr(2) + 20,
        note: "brian",
        text: "Qualifies for a top-up of up to KES 100,000 (checked with the loans officer). Sending the form.",
      },
      {
        at: hr(2) + 18,
        out: "text",
        by: "brian",
        text: "Yes, you qualify for a top-up. I'll send you the form shortly.",
        status: "delivered",
      },
    ],
  },
  {
    name: "Achieng Atieno",
    phone: "+254711337820",
    language: "sw",
    assignee: "amina",
    unread: 1,
    steps: [
      { at: hr(5), in: "text", text: "Sasa! Naomba kuuliza kuhusu gawio la mwaka huu." },
      {
        at: hr(5) - 8,
        out: "text",
        by: "amina",
        text: "Habari Achieng! Gawio la mwaka huu ni asilimia 12, na litalipwa tarehe 20 Desemba.",
      },
      { at: min(25), in: "voice" },
    ],
  },
  {
    name: "Mwangi Njoroge",
    phone: "+254720556184",
    language: "sw",
    assignee: "brian",
    unread: 1,
    steps: [
      { at: hr(1) + 30, in: "text", text: "Niaje boss, mbona sijapata doh ya loan? Niliapply wiki iliopita." },
      {
        at: hr(1) + 20,
        key: "menu",
        out: "buttons",
        by: "brian",
        text: "Pole kwa kuchelewa, Mwangi. Ungependa nini?",
        buttons: [
          { id: "loan_status", title: "Hali ya loan" },
          { id: "talk_agent", title: "Ongea na mtu" },
        ],
      },
      { at: hr(1) + 18, in: "choice", of: "menu", id: "loan_status", title: "Hali ya loan" },
      {
        at: hr(1) + 10,
        out: "text",
        by: "brian",
        text: "Loan yako ya KES 60,000 imeidhinishwa jana. Pesa itaingia kwa M-Pesa yako kabla ya saa kumi leo.",
      },
      { at: hr(1) + 5, in: "text", text: "Poa sana, shukran!" },
    ],
  },
  {
    name: "Fatuma Hassan",
    phone: "+254722903311",
    language: "en",
    assignee: "grace",
    steps: [
      { at: day(2) + hr(3), in: "text", text: "Hello, do you have an office in Nairobi? I'm in Westlands." },
      {
        at: day(2) + hr(3) - 10,
        out: "text",
        by: "grace",
        text: "Hello Fatuma, yes: our Nairobi desk is on the 2nd floor of Sarit Centre, Westlands. Open 8 am to 5 pm, Monday to Friday.",
      },
      {
        at: day(2) + hr(2) + 40,
        key: "sarit",
        in: "location",
        latitude: -1.2614,
        longitude: 36.8027,
        name: "Sarit Centre",
        address: "Karuna Close, Westlands, Nairobi",
      },
      { at: day(2) + hr(2) + 39, in: "text", text: "Is this the place?" },
      {
        at: day(2) + hr(2) + 30,
        out: "text",
        by: "grace",
        quote: "sarit",
        text: "Yes, that's it. Ask for the Nyota Sacco desk at the reception on the 2nd floor.",
      },
      { at: day(2) + hr(2), in: "text", text: "Asante sana!" },
      { at: day(2) + hr(2) - 5, resolved: "grace" },
    ],
  },
  {
    name: "Kiprop Cheruiyot",
    phone: "+254727145566",
    language: "en",
    assignee: "amina",
    steps: [
      { at: day(1) + hr(8), in: "text", text: "Hello, I need a guarantor for my development loan. This is my brother's contact." },
      { at: day(1) + hr(8) - 1, in: "contacts", name: "Kibet Cheruiyot", phone: "+254712998104" },
      { at: day(1) + hr(7), assigned: "amina", by: "grace" },
      {
        at: day(1) + hr(7) - 5,
        note: "amina",
        text: "A guarantor must be a member with at least 6 months of savings. Checking Kibet's membership.",
      },
      {
        at: day(1) + hr(6),
        out: "text",
        by: "amina",
        text: "Thanks Kiprop. Kibet needs to be a member with at least 6 months of savings. We'll check and get back to you.",
      },
    ],
  },
  {
    // A Nakuru member who answered the December reminder.
    name: "Kiprono Njoroge",
    phone: "+254701201001",
    language: "sw",
    assignee: "brian",
    campaignMember: true,
    steps: [
      { at: hr(48), in: "text", quote: "campaign", text: "Nimeona ujumbe. Naweza kulipa nusu sasa na nusu mwisho wa mwezi?" },
      {
        at: hr(47) + 30,
        out: "text",
        by: "brian",
        text: "Ndiyo Kiprono, unaweza kulipa kwa awamu mbili. Awamu ya pili iwe kabla ya tarehe 30 Desemba.",
      },
      { at: hr(3), out: "refused", by: "brian", text: "Habari Kiprono, umeweza kulipa awamu ya kwanza?" },
      {
        at: hr(3) - 4,
        note: "brian",
        text: "WhatsApp refused the follow-up: his 24-hour window is closed. Send the repayment reminder template instead.",
      },
    ],
  },
  {
    name: "Njeri Wambui",
    phone: "+254740221876",
    language: "en",
    assignee: "grace",
    steps: [
      { at: hr(6), in: "text", text: "Good morning. Is my ATM card ready for collection? I applied on 2nd November." },
      {
        at: hr(5) + 40,
        out: "text",
        by: "grace",
        text: "Good morning Njeri. Yes, your card is ready at the Nakuru branch. Please bring your ID.",
        status: "delivered",
      },
    ],
  },
  {
    name: "Omondi Otieno",
    phone: "+254790114523",
    language: "sw",
    unread: 3,
    steps: [
      { at: min(12), in: "text", text: "Boss uko?" },
      { at: min(11), in: "text", text: "Nataka kuchukua emergency loan leo." },
      { at: min(10), in: "text", text: "Ni urgent, niko na hospital bill ya mathe." },
    ],
  },
  {
    name: "Chebet Rotich",
    phone: "+254723667012",
    language: "sw",
    assignee: "amina",
    steps: [
      { at: hr(7), in: "text", text: "Habari, natuma payslip yangu ya Oktoba kwa ajili ya loan application." },
      {
        at: hr(7) - 1,
        in: "document",
        fileName: "payslip-october-2026.pdf",
        caption: "Payslip ya Oktoba",
        lines: ["Payslip: October 2026", "Employee: Chebet Rotich", "Employer: Nakuru County Government", "Net pay: KES 58,400"],
      },
      {
        at: hr(6) + 30,
        key: "received",
        out: "text",
        by: "amina",
        text: "Asante Chebet, tumepokea. Tutakujulisha ndani ya siku 3 za kazi.",
      },
      { at: hr(6) + 25, in: "reaction", of: "received", emoji: "🙏" },
    ],
  },
  {
    name: "Mutua Musyoka",
    phone: "+254701889345",
    language: "en",
    assignee: "grace",
    steps: [
      { at: day(4), in: "text", text: "Please send me my statement for the last 6 months." },
      {
        at: day(4) - 10,
        out: "text",
        by: "grace",
        text: "Hello Mutua, we have e-mailed it to the address on your account. The PDF opens with your ID number.",
      },
      { at: day(4) - 20, in: "text", text: "Received, thank you." },
      { at: day(4) - 25, resolved: "grace" },
    ],
  },
  {
    name: "Akinyi Odhiambo",
    phone: "+254795320781",
    language: "sw",
    assignee: "owner",
    unread: 1,
    steps: [
      { at: hr(2) + 20, in: "text", text: "Hi, naweza badilisha nominee kwa account yangu?" },
      {
        at: hr(2) + 10,
        key: "nominee",
        out: "text",
        by: "owner",
        text: "Hello Akinyi, yes. Fill in the nomination form at any branch, or we can e-mail it to you.",
      },
      { at: hr(2), in: "text", quote: "nominee", text: "Tafadhali nitumie kwa email: akinyi.odhiambo@gmail.com" },
    ],
  },
  {
    name: "Kamau Gitau",
    phone: "+254712660438",
    language: "en",
    assignee: "brian",
    unread: 1,
    steps: [
      { at: day(3) + hr(2), in: "text", text: "How do I join the Sacco?" },
      {
        at: day(3) + hr(2) - 10,
        out: "text",
        by: "brian",
        text: "Karibu Kamau! Registration is KES 1,000 and the minimum monthly saving is KES 2,000. Bring your ID and KRA PIN to any branch.",
      },
      { at: day(3) + hr(1), resolved: "brian" },
      { at: min(30), in: "text", text: "Nimefika branch ya Nakuru, niko kwa foleni. Nahitaji passport photo pia?" },
      { at: min(30) - 0.01, reopened: true },
    ],
  },
  {
    name: "Wafula Wekesa",
    phone: "+254729004571",
    language: "en",
    unread: 1,
    steps: [{ at: day(5) + hr(4), in: "text", text: "Hello, are you open on Saturday?" }],
  },
  {
    name: "Nyambura Maina",
    phone: "+254746578204",
    language: "sw",
    assignee: "amina",
    steps: [
      { at: day(1) + hr(3), in: "text", text: "Habari za asubuhi. Nimesahau PIN ya app yenu." },
      {
        at: day(1) + hr(3) - 10,
        out: "text",
        by: "amina",
        text: "Pole Nyambura. Bonyeza 'Nimesahau PIN' kwenye app, utapokea code kwa SMS.",
      },
      { at: day(1) + hr(2) + 30, in: "text", text: "Imefanya kazi, asante!" },
      { at: day(1) + hr(2) + 25, resolved: "amina" },
    ],
  },
  {
    name: "Kibet Langat",
    phone: "+254768230915",
    language: "en",
    assignee: "brian",
    steps: [
      { at: min(50), in: "text", text: "Hi, what is the interest rate for the school fees loan?" },
      {
        at: min(8),
        out: "text",
        by: "brian",
        text: "Hi Kibet, the school fees loan is 1% a month on the reducing balance, for up to 12 months.",
        status: "sent",
      },
    ],
  },
  {
    name: "Jepkosgei Kiplagat",
    phone: "+254757441290",
    language: "en",
    steps: [
      { at: hr(4) + 10, in: "text", text: "Hello, I want to increase my monthly contribution from KES 3,000 to KES 5,000." },
      { at: hr(4), assigned: "brian", by: "grace" },
      { at: hr(3), unassigned: "brian", by: "brian" },
      { at: hr(3) - 1, note: "brian", text: "Handing this back: I'm off this afternoon. A contribution change needs the signed form." },
    ],
  },
  {
    name: "Halima Abdi",
    phone: "+254722310487",
    language: "sw",
    assignee: "grace",
    steps: [
      { at: hr(9), in: "text", text: "Asalaam aleikum. Mnatoa mkopo usio na riba?" },
      {
        at: hr(8) + 45,
        out: "text",
        by: "grace",
        text: "Aleikum salaam Halima. Ndiyo, tuna mkopo wa Halal bila riba. Karibu kwa branch yoyote kwa maelezo zaidi.",
      },
      { at: hr(8) + 30, in: "text", text: "Shukran, nitakuja Jumatatu." },
      { at: hr(8) + 25, resolved: "grace" },
    ],
  },
  {
    name: "Muthoni Kariuki",
    phone: "+254718245630",
    language: "en",
    assignee: "amina",
    steps: [
      { at: day(3) + hr(5), in: "text", text: "Hello, what documents do I need to withdraw my savings?" },
      {
        at: day(3) + hr(4),
        out: "text",
        by: "amina",
        text: "Hello Muthoni, a withdrawal needs 60 days' written notice, your ID and your membership card.",
        status: "delivered",
      },
    ],
  },
  {
    name: "Juma Bakari",
    phone: "+254733118762",
    language: "sw",
    unread: 1,
    steps: [{ at: min(15), in: "text", text: "Jambo, niko Mombasa. Naweza kulipa loan kwa Equity agent?" }],
  },
  {
    name: "Wairimu Ndung'u",
    phone: "+254791556023",
    language: "sw",
    assignee: "grace",
    steps: [
      { at: hr(11), key: "paid", in: "text", text: "Nimelipa KES 4,500 ya mwezi huu. Asanteni!" },
      { at: hr(10) + 50, out: "reaction", by: "grace", of: "paid", emoji: "❤️" },
      { at: hr(10) + 49, resolved: "grace" },
    ],
  },
  {
    name: "Ouma Okoth",
    phone: "+254702948113",
    language: "sw",
    assignee: "brian",
    steps: [
      { at: day(2) + hr(6), in: "text", text: "Maze, hii app yenu iko down ama ni mimi?" },
      {
        at: day(2) + hr(6) - 10,
        out: "text",
        by: "brian",
        text: "Pole Ouma, tulikuwa na maintenance asubuhi. Sasa iko sawa, jaribu tena.",
      },
      { at: day(2) + hr(5) + 30, in: "text", text: "Iko poa sasa. Shukran boss." },
    ],
  },
  {
    name: "Nduta Gathoni",
    phone: "+254725880341",
    language: "en",
    assignee: "amina",
    steps: [
      { at: hr(1) + 45, in: "text", text: "What's the paybill number to deposit savings?" },
      { at: hr(1) + 40, out: "text", by: "amina", text: MPESA_ANSWER },
    ],
  },
  {
    name: "Cheruiyot Koros",
    phone: "+254717332590",
    language: "sw",
    assignee: "grace",
    steps: [
      { at: day(6), in: "text", text: "Nimepata gawio, asante Nyota!" },
      { at: day(6) - 5, out: "text", by: "grace", text: "Karibu sana Cheruiyot!" },
      { at: day(6) - 6, resolved: "grace" },
    ],
  },
  {
    name: "Moraa Nyaboke",
    phone: "+254726450917",
    language: "en",
    assignee: "owner",
    steps: [
      { at: hr(20), in: "text", text: "Hello, my ATM card was swallowed by the machine on Kenyatta Avenue." },
      {
        at: hr(19) + 50,
        out: "text",
        by: "owner",
        text: "Sorry about that, Moraa. We have blocked the card; a new one will be ready at the Nakuru branch in 5 working days.",
      },
      { at: hr(19) + 40, in: "text", text: "OK, thank you. Can someone else collect it for me?" },
      { at: hr(19) + 30, out: "text", by: "owner", text: "Only you can collect it, with your ID." },
    ],
  },
];

// Meta's reason for a free-form message outside the window, word for word (sandbox/meta/messages.ts).
const REENGAGEMENT = {
  code: 131047,
  title: "Re-engagement message",
  details: "Message failed to send because more than 24 hours have passed since the customer last replied to this number.",
};

const newWamid = () => `wamid.DEMO${randomBytes(24).toString("base64url")}`;
const newMediaId = () => `${randomInt(1, 10)}${String(randomInt(0, 1e12)).padStart(12, "0")}${randomInt(100, 1000)}`;
const unix = (at: Date) => String(Math.floor(at.getTime() / 1000));

type MessageRow = typeof messages.$inferInsert;
type EntryRow = Omit<typeof conversationEntries.$inferInsert, "conversationId"> & { conversation: number };

/** Stores a customer's file as the inbound-media job would have: the bytes, a media_files row. */
async function storeInbound(organizationId: string, phoneNumberId: string, bytes: Buffer, mimeType: string, fileName: string | null) {
  const stored = await fileStorage().write([bytes], { maxBytes: bytes.length, organisationId: organizationId, contentType: mimeType });
  const metaMediaId = newMediaId();
  const [file] = await db()
    .insert(mediaFiles)
    .values({
      organizationId,
      direction: "inbound",
      mimeType,
      size: stored.size,
      sha256: stored.sha256,
      fileName,
      storageKey: stored.key,
      metaMediaId,
      phoneNumberId,
    })
    .returning({ id: mediaFiles.id });
  // Webhooks give the file's digest in base64.
  return { id: file!.id, metaMediaId, sha256: Buffer.from(stored.sha256, "hex").toString("base64") };
}

/**
 * Seeds the conversations and the saved answers. `campaignId` is the completed Nakuru campaign,
 * whose message to a member opens one of the conversations; `templateId` is its template.
 */
// long: demo data written as a script: each conversation's messages in the order they happen, each pointing at the ones before it
export async function seedInbox(input: {
  organizationId: string;
  ownerId: string;
  phoneNumberId: string;
  /** The business number's digits (context.from of a customer's reply). */
  businessDigits: string;
  campaignId: string;
  templateId: string;
  now: number;
}) {
  const { organizationId, phoneNumberId, businessDigits, now } = input;
  const at = (minutesAgo: number) => new Date(now - minutesAgo * 60_000);
  const team = await db()
    .select({ id: users.id, email: users.email })
    .from(users)
    .where(
      and(
        eq(users.organizationId, organizationId),
        inArray(users.email, ["grace.wanjiru@nyota-sacco.demo", "brian.otieno@nyota-sacco.demo", "amina.hassan@nyota-sacco.demo"]),
      ),
    );
  const idOf = (email: string) => team.find((u) => u.email === email)?.id ?? input.ownerId;
  const member: Record<Member, string> = {
    owner: input.ownerId,
    grace: idOf("grace.wanjiru@nyota-sacco.demo"),
    brian: idOf("brian.otieno@nyota-sacco.demo"),
    amina: idOf("amina.hassan@nyota-sacco.demo"),
  };

  // The customers: new contacts, but for the campaign's member who is one already.
  const known = await db()
    .select({ id: contacts.id, phone: contacts.phone })
    .from(contacts)
    .where(
      and(
        eq(contacts.organizationId, organizationId),
        inArray(
          contacts.phone,
          DEMO_CONVERSATIONS.filter((c) => c.campaignMember).map((c) => c.phone),
        ),
      ),
    );
  const lastInbound = (c: DemoConversation) => Math.min(...c.steps.filter((s) => "in" in s).map((s) => s.at));
  const firstAt = (c: DemoConversation) => Math.max(...c.steps.map((s) => s.at));
  const fresh = DEMO_CONVERSATIONS.filter((c) => !known.some((k) => k.phone === c.phone));
  const added = await db()
    .insert(contacts)
    .values(
      fresh.map((c) => ({
        organizationId,
        name: c.name,
        phone: c.phone,
        waId: c.phone.slice(1),
        language: c.language,
        createdAt: at(firstAt(c)),
        lastSeenAt: at(lastInbound(c)),
      })),
    )
    .returning({ id: contacts.id, phone: contacts.phone });
  const contactOf = new Map([...known, ...added].map((c) => [c.phone!, c.id]));

  // The campaign's template to its member, with what Meta was sent and the wamid it answered.
  const [campaignMessage] = await db()
    .select({ id: messages.id, sentAt: messages.sentAt, body: messages.body, recipientPhone: messages.recipientPhone })
    .from(messages)
    .where(and(eq(messages.campaignId, input.campaignId), inArray(messages.recipientPhone, [...known.map((k) => k.phone!)])));

  const rows: (MessageRow & { order: number })[] = [];
  const entries: EntryRow[] = [];
  const wamidOf = new Map<string, string>();
  const files = {
    image: await storeInbound(organizationId, phoneNumberId, demoScreenshotPng(), "image/png", null),
    voice: await storeInbound(organizationId, phoneNumberId, demoVoiceNoteOgg(), "audio/ogg", null),
  };
  const summary: { contactId: string; unread: number; status: "open" | "resolved"; resolvedAt: Date | null; first: Date }[] = [];

  for (const [index, conversation] of DEMO_CONVERSATIONS.entries()) {
    const contactId = contactOf.get(conversation.phone)!;
    const from = conversation.phone.slice(1);
    const keyed = (key: string) => `${index}:${key}`;
    const inboundRows: MessageRow[] = [];
    let status: "open" | "resolved" = "open";
    let resolvedAt: Date | null = null;
    if (conversation.campaignMember && campaignMessage) {
      const wamid = newWamid();
      wamidOf.set(keyed("campaign"), wamid);
      await db()
        .update(messages)
        .set({ wamid, templateId: input.templateId, payload: campaignGraph(conversation) })
        .where(eq(messages.id, campaignMessage.id));
    }
    for (const step of conversation.steps) {
      const when = at(step.at);
      const wamid = newWamid();
      if (step.key) wamidOf.set(keyed(step.key), wamid);
      const context = (key: string | undefined, sender: string) => {
        const id = key ? wamidOf.get(keyed(key)) : undefined;
        return id ? { context: { from: sender, id } } : {};
      };
      if ("in" in step) {
        const base = { from, id: wamid, timestamp: unix(when) };
        let message: Record<string, unknown>;
        let mediaFileId: string | null = null;
        switch (step.in) {
          case "text":
            message = { ...base, ...context(step.quote, businessDigits), type: "text", text: { body: step.text } };
            break;
          case "image":
            message = {
              ...base,
              type: "image",
              image: { mime_type: "image/png", sha256: files.image.sha256, id: files.image.metaMediaId, caption: step.caption },
            };
            mediaFileId = files.image.id;
            break;
          case "voice":
            message = {
              ...base,
              type: "audio",
              audio: { mime_type: "audio/ogg; codecs=opus", sha256: files.voice.sha256, id: files.voice.metaMediaId, voice: true },
            };
            mediaFileId = files.voice.id;
            break;
          case "document": {
            const file = await storeInbound(organizationId, phoneNumberId, demoPdf(step.lines), "application/pdf", step.fileName);
            message = {
              ...base,
              type: "document",
              document: {
                mime_type: "application/pdf",
                sha256: file.sha256,
                id: file.metaMediaId,
                filename: step.fileName,
                ...(step.caption ? { caption: step.caption } : {}),
              },
            };
            mediaFileId = file.id;
            break;
          }
          case "location":
            message = {
              ...base,
              type: "location",
              location: { latitude: step.latitude, longitude: step.longitude, name: step.name, address: step.address },
            };
            break;
          case "contacts":
            message = {
              ...base,
              type: "contacts",
              contacts: [
                {
                  name: {
                    formatted_name: step.name,
                    first_name: step.name.split(" ")[0],
                    last_name: step.name.split(" ").slice(1).join(" "),
                  },
                  phones: [{ phone: step.phone, wa_id: step.phone.slice(1), type: "CELL" }],
                },
              ],
            };
            break;
          case "choice":
            message = {
              ...base,
              ...context(step.of, businessDigits),
              type: "interactive",
              interactive: { type: "button_reply", button_reply: { id: step.id, title: step.title } },
            };
            break;
          case "reaction":
            message = { ...base, type: "reaction", reaction: { message_id: wamidOf.get(keyed(step.of)), emoji: step.emoji } };
            break;
        }
        const row: MessageRow & { order: number } = {
          organizationId,
          contactId,
          direction: "inbound",
          status: "received",
          body: messageText(message),
          wamid,
          phoneNumberId,
          messageType: String(message.type),
          payload: message,
          sentAt: when,
          createdAt: new Date(when.getTime() + 1000),
          recipientPhone: conversation.phone,
          mediaFileId,
          order: step.at,
        };
        inboundRows.push(row);
        rows.push(row);
      } else if ("out" in step) {
        const quoted = step.out === "text" && step.quote ? (wamidOf.get(keyed(step.quote)) ?? null) : null;
        const reactedTo = step.out === "reaction" ? wamidOf.get(keyed(step.of)) : undefined;
        rows.push({
          ...outboundRow(step, { organizationId, contactId, phoneNumberId, to: conversation.phone, wamid, when, quoted, reactedTo }),
          sentBy: member[step.by],
          order: step.at,
        });
      } else {
        const entry = {
          organizationId,
          conversation: index,
          createdAt: when,
          ...("note" in step
            ? { kind: "note" as const, actorId: member[step.note], body: step.text }
            : "assigned" in step
              ? { kind: "assigned" as const, actorId: member[step.by], subjectId: member[step.assigned] }
              : "unassigned" in step
                ? { kind: "unassigned" as const, actorId: member[step.by], subjectId: member[step.unassigned] }
                : "resolved" in step
                  ? { kind: "resolved" as const, actorId: member[step.resolved] }
                  : { kind: "reopened" as const, actorId: null }),
        };
        entries.push(entry);
        if (entry.kind === "resolved") [status, resolvedAt] = ["resolved", when];
        if (entry.kind === "reopened") [status, resolvedAt] = ["open", null];
      }
    }
    // Read by an agent a minute after it came, but for the newest `unread` ones.
    const unread = conversation.unread ?? 0;
    inboundRows.forEach((row, i) => {
      row.readAt = i >= inboundRows.length - unread ? null : new Date(row.sentAt!.getTime() + 60_000);
    });
    summary.push({ contactId, unread, status, resolvedAt, first: at(firstAt(conversation)) });
  }

  // Oldest first, so the arrival order (seq) follows the time.
  rows.sort((a, b) => b.order - a.order);
  await db()
    .insert(messages)
    .values(rows.map(({ order: _order, ...row }) => row));

  const times = DEMO_CONVERSATIONS.map((c, i) => {
    const own = rows.filter((r) => r.contactId === summary[i]!.contactId);
    const sent = own.map((r) => (r.sentAt ?? r.createdAt)!.getTime());
    if (c.campaignMember && campaignMessage?.sentAt) sent.push(campaignMessage.sentAt.getTime());
    const inbound = own.filter((r) => r.direction === "inbound").map((r) => r.sentAt!.getTime());
    return { last: new Date(Math.max(...sent)), lastInbound: inbound.length ? new Date(Math.max(...inbound)) : null };
  });
  const saved = await db()
    .insert(conversations)
    .values(
      DEMO_CONVERSATIONS.map((c, i) => ({
        organizationId,
        phoneNumberId,
        contactId: summary[i]!.contactId,
        lastInboundAt: times[i]!.lastInbound,
        lastMessageAt: times[i]!.last,
        createdAt: c.campaignMember && campaignMessage?.sentAt ? campaignMessage.sentAt : summary[i]!.first,
        status: summary[i]!.status,
        assignedTo: c.assignee ? member[c.assignee] : null,
        resolvedAt: summary[i]!.resolvedAt,
        unreadCount: summary[i]!.unread,
      })),
    )
    .returning({ id: conversations.id });
  await db()
    .insert(conversationEntries)
    .values(entries.map(({ conversation, ...entry }) => ({ ...entry, conversationId: saved[conversation]!.id })));

  await db()
    .insert(quickReplies)
    .values(
      DEMO_SAVED_ANSWERS.map((answer, i) => ({
        organizationId,
        shortcut: answer.shortcut,
        body: answer.body,
        createdBy: input.ownerId,
        createdAt: at(day(20) - i * 30),
      })),
    );

  /** What Meta was sent for the campaign's template to this member: the December reminder's values. */
  function campaignGraph(conversation: DemoConversation) {
    return {
      messaging_product: "whatsapp",
      recipient_type: "individual",
      to: conversation.phone,
      type: "template",
      template: {
        name: "loan_repayment_reminder",
        language: { code: "en" },
        components: [
          { type: "header", parameters: [{ type: "text", text: "15 December" }] },
          {
            type: "body",
            parameters: [
              { type: "text", text: conversation.name.split(" ")[0] },
              { type: "text", text: "4,500" },
              { type: "text", text: "15 December 2026" },
              { type: "text", text: "NYOTA-NKR" },
            ],
          },
          { type: "button", sub_type: "url", index: "0", parameters: [{ type: "text", text: "NYOTA-NKR" }] },
        ],
      },
    };
  }
}

/** An agent's message in the inbox as the sending engine leaves it, with Meta's ticks (or its refusal). */
function outboundRow(
  step: Extract<Step, { out: string }>,
  c: {
    organizationId: string;
    contactId: string;
    phoneNumberId: string;
    to: string;
    wamid: string;
    when: Date;
    quoted: string | null;
    reactedTo: string | undefined;
  },
): MessageRow {
  const graph: Record<string, unknown> = { messaging_product: "whatsapp", recipient_type: "individual", to: c.to };
  let body: string;
  switch (step.out) {
    case "text":
    case "refused":
      graph.type = "text";
      graph.text = { body: step.text, preview_url: false };
      body = step.text;
      break;
    case "buttons":
      graph.type = "interactive";
      graph.interactive = {
        type: "button",
        body: { text: step.text },
        action: { buttons: step.buttons.map((b) => ({ type: "reply", reply: { id: b.id, title: b.title } })) },
      };
      body = step.text;
      break;
    case "reaction":
      graph.type = "reaction";
      graph.reaction = { message_id: c.reactedTo, emoji: step.emoji };
      body = `Reacted ${step.emoji}`;
      break;
  }
  if (c.quoted) graph.context = { message_id: c.quoted };
  const common = {
    organizationId: c.organizationId,
    contactId: c.contactId,
    direction: "outbound" as const,
    body,
    phoneNumberId: c.phoneNumberId,
    messageType: String(graph.type),
    payload: graph,
    source: "inbox",
    recipientPhone: c.to,
    contextWamid: c.quoted,
    attempts: 1,
    createdAt: c.when,
  };
  const later = (seconds: number) => new Date(c.when.getTime() + seconds * 1000);
  if (step.out === "refused")
    // Meta refused the send itself: no wamid, never accepted.
    return {
      ...common,
      status: "failed",
      failedAt: later(1),
      errorCode: REENGAGEMENT.code,
      errorTitle: REENGAGEMENT.title,
      errorDetails: REENGAGEMENT.details,
    };
  const status = step.status ?? "read";
  return {
    ...common,
    status,
    wamid: c.wamid,
    recipientWaId: c.to.slice(1),
    acceptedAt: c.when,
    sentAt: later(1),
    deliveredAt: status === "sent" ? null : later(3),
    readAt: status === "read" ? later(45) : null,
    // Answers inside the customer's window are free service messages.
    pricingCategory: "service",
    pricingType: "free_customer_service",
    billable: false,
  };
}
