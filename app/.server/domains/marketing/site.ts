import { env } from "../../infrastructure/config/env";

/** What the public pages need from configuration: hosts, contacts and the WhatsApp chat number. */
export function siteConfig() {
  const config = env();
  return {
    appUrl: config.APP_URL,
    siteUrl: config.SITE_URL,
    salesEmail: config.SALES_EMAIL,
    supportEmail: config.SUPPORT_EMAIL,
    supportPhone: config.SUPPORT_PHONE,
    whatsappNumber: config.WHATSAPP_NUMBER,
    // wa.me takes the number in international form, digits only.
    whatsappChatUrl: `https://wa.me/${config.WHATSAPP_NUMBER.replace(/\D/g, "")}`,
  };
}

export type SiteConfig = ReturnType<typeof siteConfig>;
