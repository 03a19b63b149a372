import { m } from "~/paraglide/messages";

/**
 * The landing page's words (product spec section 1). The claims are used word for word:
 * 99.9% uptime, multilingual support (Swahili, French, English), go-live in 4 to 6 weeks,
 * end-to-end encryption, SOC 2 compliance; case studies: 30% fewer office visits, over 150 agencies,
 * under 6 weeks, 65% faster response. The client organisations are fictional.
 *
 * The words are in app/messages/public (keys public_home_*), in the request's language: each list
 * is a function, called when the page is drawn.
 */

export type ClientId = "mji-mpya" | "taifa" | "mavuno" | "ukarimu" | "kilima" | "savanna" | "baraka" | "ziwa";

export interface ChatLine {
  from: "them" | "me";
  text: string;
  time: string;
}

export interface DemoChatScript {
  /** Who the visitor is talking to (the chat's header). */
  name: string;
  status: string;
  /** The accessible name of the message box. */
  inputLabel: string;
  lines: ChatLine[];
}

export const navLinks = () => [
  { href: "#solutions", label: m.public_nav_solutions() },
  { href: "#features", label: m.public_nav_features() },
  { href: "#case-studies", label: m.public_nav_case_studies() },
  { href: "#pricing", label: m.public_nav_pricing() },
  { href: "#about", label: m.public_nav_about() },
  { href: "#faq", label: m.public_nav_faq() },
];

/** A demo chat's header, status and message box, for the one the visitor talks to. */
const chatWith = (name: string) => ({ name, status: m.public_chat_status_online(), inputLabel: m.public_chat_input_label({ name }) });

export const heroChat = (): DemoChatScript => ({
  ...chatWith(m.public_chat_hero_name()),
  lines: [
    { from: "them", text: m.public_chat_hero_line1(), time: "09:41" },
    { from: "me", text: m.public_chat_hero_line2(), time: "09:42" },
    { from: "them", text: m.public_chat_hero_line3(), time: "09:42" },
  ],
});

export interface Solution {
  id: string;
  title: string;
  lead: string;
  points: string[];
  chat: DemoChatScript;
}

export const solutions = (): Solution[] => [
  {
    id: "public-sector",
    title: m.public_sector_public(),
    lead: m.public_solutions_public_lead(),
    points: [m.public_solutions_public_point1(), m.public_solutions_public_point2(), m.public_solutions_public_point3()],
    chat: {
      ...chatWith(m.public_chat_county_name()),
      lines: [
        { from: "me", text: m.public_chat_county_line1(), time: "08:15" },
        { from: "them", text: m.public_chat_county_line2(), time: "08:15" },
        { from: "me", text: "1", time: "08:16" },
        { from: "them", text: m.public_chat_county_line4(), time: "08:16" },
      ],
    },
  },
  {
    id: "banking",
    title: m.public_sector_banking(),
    lead: m.public_solutions_banking_lead(),
    points: [m.public_solutions_banking_point1(), m.public_solutions_banking_point2(), m.public_solutions_banking_point3()],
    chat: {
      ...chatWith(m.public_chat_bank_name()),
      lines: [
        { from: "me", text: m.public_chat_bank_line1(), time: "14:02" },
        { from: "them", text: m.public_chat_bank_line2(), time: "14:02" },
        { from: "me", text: m.public_chat_bank_line3(), time: "14:03" },
        { from: "them", text: m.public_chat_bank_line4(), time: "14:03" },
      ],
    },
  },
  {
    id: "enterprise",
    title: m.public_sector_enterprise(),
    lead: m.public_solutions_enterprise_lead(),
    points: [m.public_solutions_enterprise_point1(), m.public_solutions_enterprise_point2(), m.public_solutions_enterprise_point3()],
    chat: {
      ...chatWith(m.public_chat_care_name()),
      lines: [
        { from: "me", text: m.public_chat_care_line1(), time: "11:20" },
        { from: "them", text: m.public_chat_care_line2(), time: "11:20" },
        { from: "me", text: m.public_chat_care_line3(), time: "11:21" },
        { from: "them", text: m.public_chat_care_line4(), time: "11:21" },
      ],
    },
  },
];

export const features = () =>
  [
    { icon: "uptime", title: m.public_claim_uptime(), text: m.public_features_uptime_text() },
    { icon: "languages", title: m.public_features_languages_title(), text: m.public_features_languages_text() },
    { icon: "security", title: m.public_features_security_title(), text: m.public_features_security_text() },
    { icon: "launch", title: m.public_features_launch_title(), text: m.public_features_launch_text() },
  ] as const;

export interface CaseStudy {
  client: ClientId;
  name: string;
  sector: string;
  result: string;
  text: string;
}

export const caseStudies = (): CaseStudy[] => [
  {
    client: "mji-mpya",
    name: "Mji Mpya County",
    sector: m.public_sector_public(),
    result: m.public_case_mji_mpya_result(),
    text: m.public_case_mji_mpya_text(),
  },
  {
    client: "taifa",
    name: "Taifa Services Hub",
    sector: m.public_sector_public(),
    result: m.public_case_taifa_result(),
    text: m.public_case_taifa_text(),
  },
  {
    client: "mavuno",
    name: "Mavuno Savings Bank",
    sector: m.public_sector_banking(),
    result: m.public_case_mavuno_result(),
    text: m.public_case_mavuno_text(),
  },
  {
    client: "ukarimu",
    name: "Ukarimu Assurance",
    sector: m.public_sector_banking(),
    result: m.public_case_ukarimu_result(),
    text: m.public_case_ukarimu_text(),
  },
  {
    client: "kilima",
    name: "Kilima Microfinance",
    sector: m.public_sector_banking(),
    result: m.public_case_kilima_result(),
    text: m.public_case_kilima_text(),
  },
  {
    client: "savanna",
    name: "Savanna Power & Water",
    sector: m.public_sector_utilities(),
    result: m.public_claim_uptime(),
    text: m.public_case_savanna_text(),
  },
  {
    client: "baraka",
    name: "Baraka Health Network",
    sector: m.public_sector_healthcare(),
    result: m.public_claim_encryption(),
    text: m.public_case_baraka_text(),
  },
  {
    client: "ziwa",
    name: "Ziwa Logistics",
    sector: m.public_sector_enterprise(),
    result: m.public_case_ziwa_result(),
    text: m.public_case_ziwa_text(),
  },
];

/** The 7 logos of the client carousel (spec section 9). */
export const CAROUSEL_CLIENTS: ClientId[] = ["mji-mpya", "taifa", "mavuno", "ukarimu", "kilima", "savanna", "baraka"];

export const pricingFeatures = () => [
  m.public_pricing_feature1(),
  m.public_pricing_feature2(),
  m.public_pricing_feature3(),
  m.public_pricing_feature4(),
  m.public_pricing_feature5(),
  m.public_pricing_feature6(),
];

export const faqs = () => [
  { question: m.public_faq_golive_question(), answer: m.public_faq_golive_answer() },
  { question: m.public_faq_languages_question(), answer: m.public_faq_languages_answer() },
  { question: m.public_faq_security_question(), answer: m.public_faq_security_answer() },
  { question: m.public_faq_cost_question(), answer: m.public_faq_cost_answer() },
];
