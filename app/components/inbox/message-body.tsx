import { formatted } from "~/components/templates/formatted";
import {
  AlertCircle,
  Download,
  ExternalLink,
  FileText,
  Image as ImageIcon,
  Mail,
  MapPin,
  Phone,
  Play,
  Reply,
  User,
} from "~/components/ui/icons";
import type { ReactNode } from "react";
import { Button } from "~/components/ui/button";
import { mediaLabel, orderWords, type MediaKind, type MessageContent } from "~/lib/inbox";
import { intlLocale } from "~/lib/intl";
import { formatKes } from "~/lib/invoice";
import { m } from "~/paraglide/messages";

/**
 * What a message says or carries, inside its bubble in a thread: server-rendered, no script (media
 * plays in the browser's own players, nothing loads until asked: images lazily, audio and video
 * with preload="none"), and little markup, for slow mobile networks.
 */
export function MessageBody({ content }: { content: MessageContent }) {
  switch (content.kind) {
    case "text":
      return <Text text={content.text} />;
    case "media":
      return <Media content={content} />;
    case "location":
      return <Location content={content} />;
    case "contacts":
      return (
        <ul className="space-y-2">
          {content.people.map((person, i) => (
            <li key={i} className="text-sm">
              <p className="flex items-center gap-1.5 font-medium">
                <User className="size-4 shrink-0 text-slate-500" />
                {person.name}
              </p>
              {person.phones.map((phone) => (
                <a
                  key={phone}
                  href={`tel:${phone.replace(/[^\d+]/g, "")}`}
                  className="ml-5.5 flex items-center gap-1 text-sky-700 underline"
                >
                  <Phone className="size-3.5" />
                  {phone}
                </a>
              ))}
              {person.emails.map((email) => (
                <a key={email} href={`mailto:${email}`} className="ml-5.5 flex items-center gap-1 break-all text-sky-700 underline">
                  <Mail className="size-3.5" />
                  {email}
                </a>
              ))}
            </li>
          ))}
        </ul>
      );
    case "template":
      return (
        <Card
          header={content.header}
          headerMedia={content.headerMedia ? <HeaderMedia kind={content.headerMedia} url={content.headerUrl ?? null} /> : null}
          body={content.body}
          footer={content.footer}
          buttons={content.buttons}
          label={m.inbox_message_template({ name: content.name })}
        />
      );
    case "interactive":
      return <Card header={content.header} body={content.body} footer={content.footer} buttons={content.buttons} />;
    case "choice":
      return (
        <div className="text-sm">
          <p className="flex items-center gap-1.5">
            <Reply className="size-4 shrink-0 text-slate-500" />
            <span>
              {m.inbox_message_tapped()} <strong className="font-medium">{content.title}</strong>
            </span>
          </p>
          {content.description ? <p className="ml-5.5 text-xs text-slate-500">{content.description}</p> : null}
        </div>
      );
    case "reaction":
      return content.emoji ? (
        <p className="text-sm">
          {m.inbox_message_reacted()} <span className="text-xl">{content.emoji}</span>
        </p>
      ) : (
        <p className="text-sm text-slate-500 italic">{m.inbox_message_reaction_removed()}</p>
      );
    case "order":
      return (
        <div className="text-sm">
          <p className="font-medium">{orderWords(content.items)}</p>
          {content.cart ? <CartLines cart={content.cart} /> : null}
          {content.text ? <Text text={content.text} /> : null}
        </div>
      );
    case "unsupported":
      return <Notice>{content.text}</Notice>;
  }
}

const CART_STATUS_WORDS = {
  awaiting_payment: m.shop_order_status_awaiting_payment,
  paid: m.shop_order_status_paid,
  cancelled: m.shop_order_status_cancelled,
} as const;

/** The order Jumbe made of a cart: each line, the total, a link to the order's page and its payment. */
function CartLines({ cart }: { cart: NonNullable<Extract<MessageContent, { kind: "order" }>["cart"]> }) {
  return (
    <div className="mt-1 space-y-1" data-cart="">
      <ul className="divide-y divide-slate-200">
        {cart.lines.map((line, i) => (
          <li key={i} className="flex justify-between gap-3 py-0.5">
            <span className="break-words">
              {line.quantity} × {line.name}
            </span>
            <span className="whitespace-nowrap tabular-nums">{formatKes(line.quantity * line.unitPriceCents)}</span>
          </li>
        ))}
      </ul>
      <p className="flex justify-between gap-3 border-t border-slate-300 pt-1 font-semibold">
        <span>{m.shop_cart_total()}</span>
        <span className="tabular-nums">{formatKes(cart.totalCents)}</span>
      </p>
      <a href={`/shop/orders/${cart.orderId}`} className="font-medium text-brand-700 underline hover:text-brand-900">
        {m.shop_cart_open_order()}
      </a>
      {cart.status === "received" ? (
        // The conversation's own action (the inbox's "order-payment" intent): the total asked by M-Pesa.
        <form method="post" className="pt-1">
          <input type="hidden" name="orderId" value={cart.orderId} />
          <Button type="submit" name="intent" value="order-payment" size="sm" variant="secondary">
            {m.shop_order_pay_button({ amount: formatKes(Math.ceil(cart.totalCents / 100) * 100) })}
          </Button>
        </form>
      ) : (
        <p className="text-xs font-medium text-slate-600" data-cart-status={cart.status}>
          {CART_STATUS_WORDS[cart.status]()}
        </p>
      )}
    </div>
  );
}

function Text({ text }: { text: string }) {
  return <p className="text-sm break-words whitespace-pre-wrap">{formatted(text)}</p>;
}

function Notice({ children }: { children: ReactNode }) {
  return (
    <p className="flex items-start gap-1.5 text-sm text-slate-500 italic">
      <AlertCircle className="mt-0.5 size-4 shrink-0" />
      <span>{children}</span>
    </p>
  );
}

const sizeFormats = new Map<string, Intl.NumberFormat>();

/** "12.3 KB": a size for people, its number written as the page's language writes it. */
export function formatSize(bytes: number) {
  const locale = intlLocale();
  let format = sizeFormats.get(locale);
  if (!format) sizeFormats.set(locale, (format = new Intl.NumberFormat(locale, { maximumFractionDigits: 1, useGrouping: false })));
  if (bytes >= 1024 * 1024) return m.inbox_size_mb({ size: format.format(Math.round((bytes / 1024 / 1024) * 10) / 10) });
  if (bytes >= 1024) return m.inbox_size_kb({ size: format.format(Math.round((bytes / 1024) * 10) / 10) });
  return m.inbox_size_bytes({ size: format.format(bytes) });
}

/** "PDF", "DOCX": what a file is, from its name or else its type. */
function fileType(fileName: string | null, mimeType: string | null) {
  const extension = fileName?.match(/\.([a-z0-9]{1,5})$/i)?.[1];
  if (extension) return extension.toUpperCase();
  const subtype = mimeType?.split(";")[0]?.split("/")[1];
  return subtype && subtype.length <= 5 ? subtype.toUpperCase() : null;
}

function Media({ content }: { content: Extract<MessageContent, { kind: "media" }> }) {
  const label = content.voice ? m.inbox_media_voice() : mediaLabel(content.media);
  const caption = content.caption ? <Text text={content.caption} /> : null;
  if (!content.url)
    return (
      <div className="space-y-1">
        <div className="flex items-start gap-2 rounded-md bg-slate-100 px-3 py-2 text-sm">
          {content.media === "document" ? (
            <FileText className="mt-0.5 size-5 shrink-0 text-slate-500" />
          ) : (
            <ImageIcon className="mt-0.5 size-5 shrink-0 text-slate-500" />
          )}
          <span className="min-w-0">
            <span className="block font-medium break-words">{content.media === "document" ? (content.fileName ?? label) : label}</span>
            {content.unavailable ? <span className="block text-xs text-slate-500">{content.unavailable}</span> : null}
          </span>
        </div>
        {caption}
      </div>
    );
  switch (content.media) {
    case "image":
    case "sticker":
      return (
        <div className="space-y-1">
          <a
            href={content.url}
            target="_blank"
            rel="noopener"
            className="block w-fit"
            title={content.media === "sticker" ? m.inbox_media_open_full_sticker() : m.inbox_media_open_full_photo()}
          >
            <img
              src={content.url}
              alt={content.caption ?? label}
              loading="lazy"
              decoding="async"
              className={
                content.media === "sticker" ? "size-32 object-contain" : "max-h-72 max-w-full rounded-md object-contain sm:max-w-xs"
              }
            />
          </a>
          {caption}
        </div>
      );
    case "video":
      return (
        <div className="space-y-1">
          <video src={content.url} controls preload="none" className="max-h-72 max-w-full rounded-md bg-slate-900 sm:max-w-xs">
            <a href={content.url}>{m.inbox_media_download_video()}</a>
          </video>
          {caption}
        </div>
      );
    case "audio":
      return (
        <div className="space-y-1">
          {content.voice ? (
            <p className="flex items-center gap-1 text-xs text-slate-500">
              <Play className="size-3" />
              {label}
            </p>
          ) : null}
          <audio src={content.url} controls preload="none" className="w-64 max-w-full">
            <a href={content.url}>{content.voice ? m.inbox_media_download_voice() : m.inbox_media_download_audio()}</a>
          </audio>
        </div>
      );
    case "document": {
      const name = content.fileName ?? m.inbox_media_document();
      const details = [content.size !== null ? formatSize(content.size) : null, fileType(content.fileName, content.mimeType)].filter(
        Boolean,
      );
      return (
        <div className="space-y-1">
          <a
            href={content.url}
            download={content.fileName ?? ""}
            className="flex items-center gap-3 rounded-md bg-slate-100 px-3 py-2 hover:bg-slate-200"
          >
            <FileText className="size-8 shrink-0 text-red-600" />
            <span className="min-w-0 flex-1">
              <span className="block text-sm font-medium break-words">{name}</span>
              {details.length ? <span className="block text-xs text-slate-500">{details.join(" · ")}</span> : null}
            </span>
            <Download className="size-5 shrink-0 text-slate-500" />
          </a>
          {caption}
        </div>
      );
    }
  }
}

function Location({ content }: { content: Extract<MessageContent, { kind: "location" }> }) {
  const { latitude, longitude } = content;
  const map = `https://www.openstreetmap.org/?mlat=${latitude}&mlon=${longitude}#map=16/${latitude}/${longitude}`;
  return (
    <div className="flex items-start gap-2 text-sm">
      <MapPin className="mt-0.5 size-5 shrink-0 text-red-600" />
      <div className="min-w-0">
        {content.name ? <p className="font-medium break-words">{content.name}</p> : null}
        {content.address ? <p className="break-words">{content.address}</p> : null}
        <p className="text-xs text-slate-500">
          {latitude.toFixed(5)}, {longitude.toFixed(5)}
        </p>
        <a href={map} target="_blank" rel="noopener noreferrer" className="inline-flex items-center gap-1 text-sky-700 underline">
          {m.inbox_location_open_map()}
          <ExternalLink className="size-3.5" />
        </a>
      </div>
    </div>
  );
}

/** A template's media header in words, by its kind. */
function headerLabel(kind: MediaKind) {
  switch (kind) {
    case "image":
      return m.inbox_header_image();
    case "video":
      return m.inbox_header_video();
    case "audio":
      return m.inbox_header_audio();
    case "document":
      return m.inbox_header_document();
    case "sticker":
      return m.inbox_header_sticker();
  }
}

/** A template's media header: the image Jumbe sent when it holds it, else a tile of its kind. */
function HeaderMedia({ kind, url }: { kind: MediaKind; url: string | null }) {
  if (kind === "image" && url)
    return (
      <a href={url} target="_blank" rel="noopener" className="mb-2 block">
        <img src={url} alt={headerLabel(kind)} loading="lazy" decoding="async" className="max-h-56 w-full rounded-md object-cover" />
      </a>
    );
  if (url)
    return (
      <a href={url} className="mb-2 flex items-center gap-2 rounded-md bg-slate-100 px-3 py-2 text-sm text-sky-700 underline">
        {kind === "video" ? <Play className="size-5" /> : <FileText className="size-5" />}
        {headerLabel(kind)}
      </a>
    );
  return (
    <p className="mb-2 flex items-center gap-2 rounded-md bg-slate-100 px-3 py-2 text-sm text-slate-500">
      {kind === "video" ? (
        <Play className="size-5" />
      ) : kind === "document" ? (
        <FileText className="size-5" />
      ) : (
        <ImageIcon className="size-5" />
      )}
      {headerLabel(kind)}
    </p>
  );
}

/** A template or an interactive message as WhatsApp lays it out; its buttons are labels here, not controls. */
function Card(props: {
  header: string | null;
  headerMedia?: ReactNode;
  body: string;
  footer: string | null;
  buttons: string[];
  label?: string;
}) {
  return (
    <div className="text-sm" role={props.label ? "group" : undefined} aria-label={props.label}>
      {props.headerMedia}
      {props.header ? <p className="mb-1 font-semibold break-words">{props.header}</p> : null}
      <p className="break-words whitespace-pre-wrap">{formatted(props.body)}</p>
      {props.footer ? <p className="mt-1 text-xs text-slate-500">{props.footer}</p> : null}
      {props.buttons.length ? (
        <ul className="mt-2 space-y-1">
          {props.buttons.map((button, i) => (
            <li key={i} className="rounded-md border border-slate-200 bg-white px-3 py-1.5 text-center font-medium text-sky-700">
              {button}
            </li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}
