import { createRule } from "../domains/automations/rules";
import { saveAutomationSettings } from "../domains/automations/settings";
import { addArticles } from "../domains/automations/assistant/knowledge";
import { saveAssistantSettings } from "../domains/automations/assistant/settings";
import { sandboxBaseUrl } from "../domains/automations/assistant/endpoint";
import { SANDBOX_LLM_MODEL } from "../infrastructure/clients/llm";
import { createFlow, publishFlow } from "../domains/automations/flows/store";

/**
 * The demo Sacco's automations (issue 44): keyword rules its members write to most, in Swahili and
 * English, a welcome for a first message and an away message outside its branch hours (Nairobi), and
 * a chatbot flow for emergency loans that a keyword starts. Their figures start at nought: they count
 * only what they answer from now on.
 */
export async function seedAutomations(organizationId: string, ownerId: string) {
  const actor = { organizationId, userId: ownerId };
  await createRule(actor, {
    name: "Loan rates",
    matchType: "contains",
    keywords: ["riba", "interest", "loan rate", "mkopo"],
    reply:
      "Riba ya mikopo ya Nyota ni 1% kwa mwezi kwa salio linalopungua. Mkopo wa dharura hadi mara 3 ya akiba yako. Jibu AGENT kuongea na afisa wa mikopo.",
    addTags: ["loan-enquiry"],
  });
  await createRule(actor, {
    name: "Paybill deposits",
    matchType: "fuzzy",
    keywords: ["paybill", "lipa na mpesa", "deposit"],
    threshold: 0.8,
    reply: "Weka akiba kwa M-Pesa: Lipa na M-Pesa, Paybill 522533, akaunti ni nambari yako ya uanachama. Utapokea risiti kwa SMS.",
  });
  await createRule(actor, {
    name: "Balance enquiry",
    matchType: "starts_with",
    keywords: ["balance", "salio", "statement"],
    reply: "Kwa usalama wako hatutumi salio kwenye WhatsApp. Piga *384*22# au pakua taarifa kwenye programu ya Nyota.",
    cooldownMinutes: 60,
  });
  await createRule(actor, {
    name: "Branch hours",
    matchType: "contains",
    keywords: ["saa ngapi", "opening hours", "mnafungua", "branch"],
    reply: "Matawi yetu hufunguliwa Jumatatu hadi Ijumaa saa 2:00 asubuhi hadi saa 11:00 jioni, na Jumamosi saa 3:00 hadi saa 7:00 mchana.",
  });
  await seedLoanFlow(actor);
  await saveAutomationSettings(
    actor,
    {
      welcomeEnabled: true,
      welcomeText: "Karibu Nyota Savings Sacco! Uliza kuhusu mikopo, akiba au M-Pesa. Afisa wetu atakujibu hivi punde.",
      awayEnabled: true,
      awayText: "Asante kwa kuwasiliana na Nyota. Tumefunga kwa sasa; tutakujibu tukifungua. Kwa dharura piga 0700 000 111.",
      days: {
        0: [],
        1: [{ from: "08:00", to: "17:00" }],
        2: [{ from: "08:00", to: "17:00" }],
        3: [{ from: "08:00", to: "17:00" }],
        4: [{ from: "08:00", to: "17:00" }],
        5: [{ from: "08:00", to: "17:00" }],
        6: [{ from: "09:00", to: "13:00" }],
      },
      holidays: ["2026-12-12", "2026-12-25", "2026-12-26", "2027-01-01"],
      holidayMode: false,
    },
    "Africa/Nairobi",
  );
}

/**
 * The demo Sacco's AI assistant (issue 44): on for its number, talking to the model sandbox inside
 * Jumbe, with a small knowledge base of what members ask most (deposits by M-Pesa, branches and
 * hours, ATM cards, loans). Titles are the Sacco's own words, never a line of the product's.
 */
export async function seedAssistant(organizationId: string, ownerId: string, phoneNumberId: string) {
  const actor = { organizationId, userId: ownerId };
  const knowledge = [
    {
      title: "Kuweka akiba kwa M-Pesa (Nyota paybill)",
      body:
        "Deposit savings or repay a loan with Lipa na M-Pesa: Paybill 522533, account number your Nyota membership number (for example NY-20417). " +
        "The money reaches your account within minutes and you get an SMS receipt.\n\n" +
        "Weka akiba au lipa mkopo kwa Lipa na M-Pesa: Paybill 522533, akaunti ni nambari yako ya uanachama. Utapokea risiti kwa SMS.",
    },
    {
      title: "Nyota branches in Nairobi and their hours",
      body:
        "Our branches are on Moi Avenue (CBD), at Westlands Square, Kilimani (Argwings Kodhek Road), Eastleigh 1st Avenue and Thika Road Mall. " +
        "They open Monday to Friday from 8 am to 5 pm and on Saturday from 9 am to 1 pm; closed on Sundays and public holidays.\n\n" +
        "Matawi yetu hufunguliwa Jumatatu hadi Ijumaa saa mbili asubuhi hadi saa kumi na moja jioni, na Jumamosi saa tatu hadi saa saba mchana.",
    },
    {
      title: "Nyota ATM card delivery",
      body:
        "We deliver new and replacement ATM cards free within Nairobi (CBD, Westlands, Kilimani, Kileleshwa, Lavington, Karen, Eastleigh, Embakasi, Kasarani, Ruaka) in 3 working days; " +
        "outside Nairobi collect the card at your branch. A replacement card costs KES 500, deducted from your savings.",
    },
    {
      title: "Emergency loans at Nyota",
      body:
        "An emergency loan is up to 3 times your savings, at 1% a month on the reducing balance, repaid over up to 12 months. " +
        "You need six months of membership and one guarantor. Apply at a branch or in the Nyota app; a loan officer calls you within a day.\n\n" +
        "Mkopo wa dharura ni hadi mara tatu ya akiba yako, riba 1% kwa mwezi.",
    },
  ];
  await addArticles(actor, knowledge, "manual");
  const sandbox = sandboxBaseUrl();
  if (!sandbox) return;
  await saveAssistantSettings(actor, {
    enabled: true,
    phoneNumberIds: [phoneNumberId],
    instructions: "Jibu kwa upole na kwa ufupi. Usizungumzie siasa, na usiulize namba ya siri (PIN) ya mwanachama.",
    baseUrl: sandbox,
    model: SANDBOX_LLM_MODEL,
    apiKey: "sk-nyota-sandbox-0001",
    handoverText: "Asante! Afisa wa Nyota atakujibu hapa hivi karibuni. / Thank you, a Nyota officer will reply here shortly.",
    maxTurns: 6,
    monthlyCapCents: 500_000,
    inputPriceCents: 2_000,
    outputPriceCents: 8_000,
  });
}

/**
 * "Mkopo wa dharura": a member's number, the amount (three buttons), small loans told the next step
 * and tagged, large ones handed to a loans officer. Started by DHARURA (a rule after the others).
 */
async function seedLoanFlow(actor: { organizationId: string; userId: string }) {
  const flow = await createFlow(actor, {
    name: "Mkopo wa dharura",
    idleMinutes: 30,
    idleText: "Hatujapata jibu lako. Andika DHARURA wakati wowote kuanza tena.",
    steps: [
      {
        id: "member",
        type: "question",
        text: "Karibu kwenye mkopo wa dharura wa Nyota. Andika nambari yako ya uanachama.",
        input: "text",
        validate: "number",
        variable: "member",
        retryText: "Nambari ya uanachama ni tarakimu tu, kwa mfano 20431.",
        maxTries: 3,
        giveUpTo: "officer",
      },
      {
        id: "amount",
        type: "question",
        text: "Asante {{contact.name}}. Unahitaji kiasi gani?",
        input: "buttons",
        choices: ["Hadi KES 10,000", "KES 10,001-50,000", "Zaidi ya KES 50,000"],
        validate: "choice",
        variable: "amount",
        retryText: "Tafadhali chagua kitufe kimoja.",
        maxTries: 2,
        giveUpTo: "officer",
      },
      { id: "large", type: "branch", source: "answer", operator: "equals", value: "Zaidi ya KES 50,000", then: "officer", else: "next" },
      {
        id: "small",
        type: "message",
        text: "Mkopo wa {{amount}} kwa mwanachama {{member}} huidhinishwa siku hiyo hiyo. Tutakutumia fomu kwa SMS; ijaze na uitume kabla ya saa 11 jioni.",
      },
      { id: "tag", type: "set", action: "add_tag", key: "emergency-loan" },
      { id: "done", type: "end" },
      { id: "officer", type: "message", text: "Afisa wa mikopo atakusaidia. Tunakuunganisha sasa; tafadhali subiri kidogo." },
      { id: "handover", type: "handover" },
    ],
  });
  await publishFlow(actor, flow.id);
  await createRule(actor, { name: "Emergency loan start", matchType: "exact", keywords: ["dharura", "emergency loan"], flowId: flow.id });
}
