import { eq } from "drizzle-orm";
import { db } from "../infrastructure/db/client";
import { messageTemplates, organizations, templateEvents, templateMedia } from "../infrastructure/db/schema";
import { demoPosterPng } from "./seed-media";
import { newBusinessId } from "../domains/auth/signup";
import { toMetaComponents, type TemplateInput } from "../../lib/templates";

/**
 * The admin console's Templates tab demo: three more organisations with templates across types,
 * languages and statuses, two of them held for review (one flagged by Meta, one new) with
 * submissions waiting in the queue (one with an image header and its sample), and each template's history. No WhatsApp account is connected
 * for them (their WABA ids are only labels), so approving a demo template answers that the account
 * must be connected again; rejecting works as it would for a real tenant.
 */

const hoursAgo = (now: Date, hours: number) => new Date(now.getTime() - hours * 3_600_000);

interface DemoTemplate {
  input: TemplateInput;
  status: "held" | "pending" | "approved" | "rejected";
  submittedHoursAgo: number;
  rejection?: string;
  platformRejection?: string;
  metaId?: string;
  /** An IMAGE header's sample (a PNG made here). */
  sample?: { fileName: string; bytes: () => Buffer };
}

interface DemoTenant {
  name: string;
  county: string;
  industry: string;
  templateReview: boolean;
  wabaId: string;
  flaggedBecause?: string;
  templates: DemoTemplate[];
}

const body = (text: string, examples: string[] = []): Pick<TemplateInput, "headerFormat" | "body" | "bodyExamples" | "buttons"> => ({
  headerFormat: "NONE",
  body: text,
  bodyExamples: examples,
  buttons: [],
});

const TENANTS: DemoTenant[] = [
  {
    name: "Shamba Smart Agrovet",
    county: "Eldoret",
    industry: "agriculture",
    templateReview: true,
    wabaId: "104920337100451",
    flaggedBecause: "Meta flagged seed_offer_flash: customers reported it",
    templates: [
      {
        status: "held",
        submittedHoursAgo: 5,
        input: {
          name: "fertiliser_price_drop",
          category: "MARKETING",
          language: "en",
          ...body("Habari {{1}}! DAP fertiliser is now KES {{2}} per 50 kg bag at Shamba Smart. Offer ends Friday.", ["Kiprop", "6,500"]),
          footer: "Reply STOP to opt out",
        },
      },
      {
        status: "held",
        submittedHoursAgo: 4,
        sample: { fileName: "dap-offer-poster.png", bytes: demoPosterPng },
        input: {
          name: "dap_offer_poster",
          category: "MARKETING",
          language: "en",
          ...body("{{1}}, this week's offer at Shamba Smart: DAP and CAN fertiliser at KES {{2}} off every 50 kg bag.", ["Chebet", "500"]),
          headerFormat: "IMAGE",
        },
      },
      {
        status: "held",
        submittedHoursAgo: 3,
        input: {
          name: "mbegu_bora_tangazo",
          category: "MARKETING",
          language: "sw",
          ...body("Habari {{1}}, mbegu za mahindi H614 zimefika dukani. Bei ni KES {{2}} kwa kilo 2.", ["Wanjiku", "650"]),
        },
      },
      {
        status: "rejected",
        submittedHoursAgo: 30,
        platformRejection: "Remove the promise of guaranteed harvests: it is a claim Meta refuses for marketing templates.",
        input: {
          name: "guaranteed_harvest",
          category: "MARKETING",
          language: "en",
          ...body("Double your harvest guaranteed with Shamba Smart seeds, {{1}}!", ["Otieno"]),
        },
      },
      {
        status: "approved",
        submittedHoursAgo: 24 * 20,
        metaId: "881203344501",
        input: {
          name: "order_ready_pickup",
          category: "UTILITY",
          language: "en",
          ...body("Hello {{1}}, your order {{2}} is ready for pickup at our Eldoret branch.", ["Kiprop", "KB-2291"]),
        },
      },
    ],
  },
  {
    name: "Mwangaza Microfinance",
    county: "Kisumu",
    industry: "microfinance",
    templateReview: true,
    wabaId: "104920337100452",
    templates: [
      {
        status: "held",
        submittedHoursAgo: 1,
        input: {
          name: "loan_approved_sw",
          category: "UTILITY",
          language: "sw",
          ...body("Habari {{1}}, mkopo wako wa KES {{2}} umeidhinishwa. Pesa zitatumwa kwa M-Pesa leo.", ["Akinyi", "15,000"]),
        },
      },
    ],
  },
  {
    name: "Safari Tours Kenya",
    county: "Mombasa",
    industry: "tourism",
    templateReview: false,
    wabaId: "104920337100453",
    templates: [
      {
        status: "approved",
        submittedHoursAgo: 24 * 45,
        metaId: "881203344511",
        input: {
          name: "booking_confirmation",
          category: "UTILITY",
          language: "en",
          ...body("Jambo {{1}}, your safari to {{2}} on {{3}} is confirmed. Karibu!", ["Claire", "Maasai Mara", "12 December"]),
        },
      },
      {
        status: "approved",
        submittedHoursAgo: 24 * 44,
        metaId: "881203344512",
        input: {
          name: "confirmation_reservation",
          category: "UTILITY",
          language: "fr",
          ...body("Bonjour {{1}}, votre safari à {{2}} est confirmé. Karibu !", ["Claire", "Amboseli"]),
        },
      },
      {
        status: "pending",
        submittedHoursAgo: 2,
        metaId: "881203344513",
        input: {
          name: "december_coast_offer",
          category: "MARKETING",
          language: "en",
          ...body("{{1}}, book a December coast holiday in Diani by Friday and save 15%.", ["Claire"]),
        },
      },
      {
        status: "approved",
        submittedHoursAgo: 24 * 60,
        metaId: "881203344514",
        input: {
          name: "booking_code",
          category: "AUTHENTICATION",
          language: "en",
          ...body("{{1}} is your verification code.", ["482913"]),
        },
      },
      {
        status: "rejected",
        submittedHoursAgo: 24 * 3,
        metaId: "881203344515",
        rejection: "INVALID_FORMAT: The template has a variable at the start of the message.",
        input: {
          name: "offre_speciale",
          category: "MARKETING",
          language: "fr",
          ...body("{{1}} : offre spéciale safari cette semaine.", ["Claire"]),
        },
      },
    ],
  },
];

export async function seedAdminTemplates(now = new Date()) {
  for (const tenant of TENANTS) {
    const [organization] = await db()
      .insert(organizations)
      .values({
        name: tenant.name,
        businessId: newBusinessId(),
        status: "active",
        planType: "Growth",
        county: tenant.county,
        industry: tenant.industry,
        templateReview: tenant.templateReview,
        createdAt: hoursAgo(now, 24 * 90),
      })
      .returning({ id: organizations.id });
    const organizationId = organization!.id;
    for (const demo of tenant.templates) {
      const submittedAt = hoursAgo(now, demo.submittedHoursAgo);
      const [template] = await db()
        .insert(messageTemplates)
        .values({
          organizationId,
          wabaId: tenant.wabaId,
          metaTemplateId: demo.metaId ?? null,
          name: demo.input.name,
          language: demo.input.language,
          category: demo.input.category,
          status: demo.status,
          components: toMetaComponents(demo.input),
          rejectionReason: demo.rejection ?? null,
          platformRejection: demo.platformRejection ?? null,
          platformReviewedAt: demo.platformRejection ? hoursAgo(now, demo.submittedHoursAgo - 2) : null,
          submittedAt,
          createdAt: hoursAgo(now, demo.submittedHoursAgo + 1),
        })
        .returning({ id: messageTemplates.id });
      const templateId = template!.id;
      if (demo.sample) {
        const bytes = demo.sample.bytes();
        await db()
          .insert(templateMedia)
          .values({ organizationId, templateId, fileName: demo.sample.fileName, contentType: "image/png", size: bytes.length, bytes });
      }
      const at = (hours: number) => hoursAgo(now, demo.submittedHoursAgo - hours);
      const events: (typeof templateEvents.$inferInsert)[] = [
        { templateId, organizationId, source: "tenant", event: "submitted", createdAt: at(0) },
      ];
      if (demo.status === "held" || demo.platformRejection)
        events.push({ templateId, organizationId, source: "platform", event: "held", createdAt: at(0) });
      if (demo.platformRejection)
        events.push({
          templateId,
          organizationId,
          source: "platform",
          event: "rejected",
          reason: demo.platformRejection,
          createdAt: at(2),
        });
      if (demo.metaId) {
        events.push({ templateId, organizationId, source: "meta", event: "sent", createdAt: at(0) });
        if (demo.status !== "pending")
          events.push({
            templateId,
            organizationId,
            source: "meta",
            event: demo.status.toUpperCase(),
            reason: demo.rejection ?? null,
            createdAt: at(1),
          });
      }
      await db().insert(templateEvents).values(events);
    }
    if (tenant.flaggedBecause) {
      const [first] = await db()
        .select({ id: messageTemplates.id })
        .from(messageTemplates)
        .where(eq(messageTemplates.organizationId, organizationId))
        .limit(1);
      await db()
        .insert(templateEvents)
        .values({
          templateId: first!.id,
          organizationId,
          source: "platform",
          event: "organisation_held",
          reason: tenant.flaggedBecause,
          createdAt: hoursAgo(now, 24 * 10),
        });
    }
  }
}
