/**
 * The landing page's words (product spec section 1). The claims are used word for word:
 * 99.9% uptime, multilingual support (Swahili, French, English), go-live in 4 to 6 weeks,
 * end-to-end encryption, SOC 2 compliance; case studies: 30% fewer office visits, over 150 agencies,
 * under 6 weeks, 65% faster response. The client organisations are fictional.
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

export const NAV_LINKS = [
  { href: "#solutions", label: "Solutions" },
  { href: "#features", label: "Features" },
  { href: "#case-studies", label: "Case Studies" },
  { href: "#pricing", label: "Pricing" },
  { href: "#about", label: "About" },
  { href: "#faq", label: "FAQ" },
] as const;

export const HERO_CHAT: DemoChatScript = {
  name: "Jumbe Assistant",
  status: "online",
  inputLabel: "Message Jumbe Assistant",
  lines: [
    { from: "them", text: "Karibu! I'm the Jumbe Assistant. How can I help you today?", time: "09:41" },
    { from: "me", text: "Habari! I'd like to check the status of my application.", time: "09:42" },
    {
      from: "them",
      text: "Sure. Please share your reference number and I'll look it up for you, in English, Kiswahili or Français.",
      time: "09:42",
    },
  ],
};

export interface Solution {
  id: string;
  title: string;
  lead: string;
  points: string[];
  chat: DemoChatScript;
}

export const SOLUTIONS: Solution[] = [
  {
    id: "public-sector",
    title: "Public Sector",
    lead: "Bring government services to where citizens already are. Answer questions, share application updates and take bookings on WhatsApp, around the clock.",
    points: [
      "Service enquiries, permits and application status in one chat",
      "Appointment booking and reminders that cut queues",
      "Announcements and alerts to citizens who opted in",
    ],
    chat: {
      name: "County Services",
      status: "online",
      inputLabel: "Message County Services",
      lines: [
        { from: "me", text: "Hello, how do I renew my single business permit?", time: "08:15" },
        {
          from: "them",
          text: "You can renew it right here. Reply 1 to start your renewal or 2 to book a visit to a service centre.",
          time: "08:15",
        },
        { from: "me", text: "1", time: "08:16" },
        { from: "them", text: "Great. Please send your business registration number.", time: "08:16" },
      ],
    },
  },
  {
    id: "banking",
    title: "Banking & Financial Services",
    lead: "Serve account holders securely on the channel they trust. Balance checks, loan applications, card services and fraud alerts, with end-to-end encryption.",
    points: [
      "Verified self-service for balances, statements and cards",
      "Loan and account applications with document upload",
      "Real-time transaction and fraud alerts",
    ],
    chat: {
      name: "Bank Support",
      status: "online",
      inputLabel: "Message Bank Support",
      lines: [
        { from: "me", text: "I need a mini statement for my savings account.", time: "14:02" },
        {
          from: "them",
          text: "For your security, please confirm the one-time code we just sent to your registered number.",
          time: "14:02",
        },
        { from: "me", text: "Done.", time: "14:03" },
        { from: "them", text: "Confirmed. Your mini statement is ready. Latest: M-Pesa deposit, KES 2,500.", time: "14:03" },
      ],
    },
  },
  {
    id: "enterprise",
    title: "Enterprise AI & CRM",
    lead: "Connect AI assistants to your CRM and core systems, so every conversation is personal and every hand-over to a human agent keeps its context.",
    points: [
      "AI bots that answer from your own knowledge base",
      "Two-way sync with your CRM, helpdesk and ERP",
      "Smooth hand-over to live agents with full history",
    ],
    chat: {
      name: "Customer Care",
      status: "online",
      inputLabel: "Message Customer Care",
      lines: [
        { from: "me", text: "Where is my order #4821?", time: "11:20" },
        { from: "them", text: "Hi Amina! Order #4821 left our Nairobi warehouse this morning and arrives tomorrow.", time: "11:20" },
        { from: "me", text: "Can I change the delivery address?", time: "11:21" },
        { from: "them", text: "Of course. I'm connecting you to an agent who can see your order history.", time: "11:21" },
      ],
    },
  },
];

export const FEATURES = [
  {
    icon: "uptime",
    title: "99.9% uptime",
    text: "Infrastructure built for always-on public services and banking, with monitoring around the clock.",
  },
  {
    icon: "languages",
    title: "Multilingual support",
    text: "Bots and templates with multilingual support (Swahili, French, English), so every customer is served in their language.",
  },
  {
    icon: "security",
    title: "Security and compliance",
    text: "End-to-end encryption on every conversation and SOC 2 compliance for your auditors.",
  },
  {
    icon: "launch",
    title: "Fast go-live",
    text: "From kick-off to your first live conversation: go-live in 4 to 6 weeks, with onboarding support throughout.",
  },
] as const;

export interface CaseStudy {
  client: ClientId;
  name: string;
  sector: string;
  result: string;
  text: string;
}

export const CASE_STUDIES: CaseStudy[] = [
  {
    client: "mji-mpya",
    name: "Mji Mpya County",
    sector: "Public Sector",
    result: "30% fewer office visits",
    text: "Residents renew permits and check applications on WhatsApp instead of queuing at county offices.",
  },
  {
    client: "taifa",
    name: "Taifa Services Hub",
    sector: "Public Sector",
    result: "Over 150 agencies",
    text: "One verified WhatsApp channel connects citizens with over 150 agencies.",
  },
  {
    client: "mavuno",
    name: "Mavuno Savings Bank",
    sector: "Banking & Financial Services",
    result: "Live in under 6 weeks",
    text: "Balance checks, statements and card services moved to WhatsApp in under 6 weeks.",
  },
  {
    client: "ukarimu",
    name: "Ukarimu Assurance",
    sector: "Banking & Financial Services",
    result: "65% faster response",
    text: "Claims questions are answered by an AI assistant first, with agents taking over when needed: 65% faster response.",
  },
  {
    client: "kilima",
    name: "Kilima Microfinance",
    sector: "Banking & Financial Services",
    result: "Swahili, French, English",
    text: "Loan reminders and repayments for members across East and Central Africa, with multilingual support (Swahili, French, English).",
  },
  {
    client: "savanna",
    name: "Savanna Power & Water",
    sector: "Utilities",
    result: "99.9% uptime",
    text: "Outage alerts, meter readings and bill enquiries on a channel with 99.9% uptime.",
  },
  {
    client: "baraka",
    name: "Baraka Health Network",
    sector: "Healthcare",
    result: "End-to-end encryption",
    text: "Appointment reminders and lab-result notices protected by end-to-end encryption.",
  },
  {
    client: "ziwa",
    name: "Ziwa Logistics",
    sector: "Enterprise AI & CRM",
    result: "CRM-connected AI",
    text: "Delivery updates come straight from the CRM, and an AI assistant handles rescheduling.",
  },
];

/** The 7 logos of the client carousel (spec section 9). */
export const CAROUSEL_CLIENTS: ClientId[] = ["mji-mpya", "taifa", "mavuno", "ukarimu", "kilima", "savanna", "baraka"];

export const PRICING_FEATURES = [
  "WhatsApp Business API onboarding and verification",
  "AI bots with multilingual support (Swahili, French, English)",
  "Campaigns, broadcasts and message templates",
  "CRM and core-system integrations",
  "End-to-end encryption and SOC 2 compliance",
  "99.9% uptime and a dedicated account team",
];

export const FAQS = [
  {
    question: "How long does it take to go live?",
    answer:
      "Most organisations go live in 4 to 6 weeks. That covers WhatsApp Business account verification, message template approval, integration with your systems and training for your team.",
  },
  {
    question: "Which languages do your bots speak?",
    answer: "Jumbe offers multilingual support (Swahili, French, English). Customers can switch language at any point in a conversation.",
  },
  {
    question: "How do you keep our data secure?",
    answer:
      "Conversations are protected by end-to-end encryption, and our platform maintains SOC 2 compliance. Access to your workspace is controlled by roles and every action is recorded in an activity log.",
  },
  {
    question: "How much does Jumbe cost?",
    answer:
      "Our Enterprise plan is priced to fit your message volumes, integrations and support needs. Talk to our sales team for a custom quote in KES.",
  },
];
