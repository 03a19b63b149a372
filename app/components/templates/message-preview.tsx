import { Copy, ExternalLink, FileText, Image as ImageIcon, Phone, Play, Reply } from "~/components/ui/icons";
import type { RenderedTemplate } from "~/lib/templates";
import { formatted } from "./formatted";
import { m } from "~/paraglide/messages";

export const DEVICE_WIDTHS = { mobile: 360, tablet: 600, desktop: 900 } as const;
export type Device = keyof typeof DEVICE_WIDTHS;

// The text formatting a conversation's bubbles share (without the rest of the preview): its own module.
export { formatted } from "./formatted";

const IMAGE_CLASS = "mb-2 max-h-56 w-full rounded-md object-cover";

/**
 * A media header as WhatsApp shows it: the image, a video's poster with a play button, a document's
 * file row. `chosen`: an image chosen in the browser takes the image's place (app/assets/live.js).
 */
function MediaHeader({ media, chosen }: { media: NonNullable<RenderedTemplate["media"]>; chosen?: boolean }) {
  const slot = chosen ? IMAGE_CLASS : undefined;
  if (media.format === "IMAGE")
    return media.src ? (
      <img
        src={media.src}
        alt={media.fileName ? m.templates_preview_header_image_named({ file: media.fileName }) : m.templates_preview_header_image()}
        className={IMAGE_CLASS}
        data-live-image={slot}
        data-live-image-alt={slot && m.templates_preview_header_image_named({ file: "" })}
      />
    ) : (
      <div
        className="mb-2 flex h-36 items-center justify-center rounded-md bg-slate-200 text-slate-500"
        role="img"
        aria-label={m.templates_preview_header_image()}
        data-live-image={slot}
        data-live-image-alt={slot && m.templates_preview_header_image_named({ file: "" })}
      >
        <ImageIcon className="size-10" aria-hidden />
      </div>
    );
  if (media.format === "VIDEO")
    return (
      <div
        className="mb-2 flex h-36 items-center justify-center rounded-md bg-slate-700"
        role="img"
        aria-label={media.fileName ? m.templates_preview_header_video_named({ file: media.fileName }) : m.templates_preview_header_video()}
      >
        <span className="flex size-12 items-center justify-center rounded-full bg-black/50 text-white">
          <Play className="size-6 translate-x-0.5" aria-hidden />
        </span>
      </div>
    );
  return (
    <div className="mb-2 flex items-center gap-3 rounded-md bg-slate-100 px-3 py-2" aria-label={m.templates_preview_header_document()}>
      <FileText className="size-8 shrink-0 text-red-600" aria-hidden />
      <div className="min-w-0">
        <p className="truncate text-sm font-medium">{media.fileName || m.templates_preview_document()}</p>
        <p className="text-xs text-slate-500">PDF</p>
      </div>
    </div>
  );
}

/** The figure's name: "Message preview, mobile width". */
function figureLabel(device: Device) {
  if (device === "mobile") return m.templates_preview_figure_mobile();
  return device === "tablet" ? m.templates_preview_figure_tablet() : m.templates_preview_figure_desktop();
}

const ICONS = { QUICK_REPLY: Reply, URL: ExternalLink, PHONE_NUMBER: Phone, COPY_CODE: Copy, OTP: Copy } as const;

/** A template as WhatsApp shows it: a chat bubble with header, body, footer, time and buttons. */
export function MessagePreview({
  message,
  device = "mobile",
  time = "10:24",
  chosenImage,
}: {
  message: RenderedTemplate;
  device?: Device;
  time?: string;
  /** A header image chosen in the browser shows here before it is sent (the template editor). */
  chosenImage?: boolean;
}) {
  return (
    <div className="mx-auto w-full" style={{ maxWidth: DEVICE_WIDTHS[device] }} data-device={device}>
      <div className="rounded-2xl bg-[#efeae2] p-3 shadow-inner" role="figure" aria-label={figureLabel(device)}>
        <div className="max-w-[85%] rounded-lg rounded-tl-none bg-white px-3 py-2 text-[15px] leading-snug text-slate-900 shadow-sm">
          {message.media ? <MediaHeader media={message.media} chosen={chosenImage} /> : null}
          {message.header ? <p className="mb-1 font-semibold break-words">{message.header}</p> : null}
          <p className="break-words whitespace-pre-wrap">{formatted(message.body)}</p>
          {message.footer ? <p className="mt-1 text-xs text-slate-500">{message.footer}</p> : null}
          <p className="mt-0.5 text-right text-[11px] text-slate-500">{time}</p>
        </div>
        {message.buttons.length ? (
          <ul className="mt-1 max-w-[85%] space-y-1">
            {message.buttons.map((button, i) => {
              const Icon = ICONS[button.type as keyof typeof ICONS] ?? Reply;
              return (
                <li
                  key={i}
                  className="flex items-center justify-center gap-1.5 rounded-lg bg-white px-3 py-2 text-sm font-medium text-sky-700 shadow-sm"
                >
                  <Icon className="size-4" aria-hidden />
                  <span>{button.text}</span>
                  {button.detail ? <span className="sr-only">({button.detail})</span> : null}
                </li>
              );
            })}
          </ul>
        ) : null}
      </div>
    </div>
  );
}
