import { Form } from "react-router";
import { Link } from "~/components/ui/link";
import type { ReplyTemplate as ReplyTemplateView } from "~/lib/inbox";
import { MAX_NOTE_LENGTH, MAX_TEXT_LENGTH } from "~/lib/inbox";
import { Button } from "~/components/ui/button";
import { Notice } from "~/components/ui/notice";
import { Paperclip, Send, X } from "~/components/ui/icons";
import { TextLink } from "~/components/ui/text-link";
import { m } from "~/paraglide/messages";

/** What an action answers when it refuses: the field and its message, and what was typed (to show again without JavaScript). */
export interface InboxActionData {
  errors?: Record<string, string>;
  values?: Record<string, string>;
}

/** The file types the composer takes (Meta's media types for image, video, audio and document). */
export const ATTACHMENT_ACCEPT =
  "image/jpeg,image/png,video/mp4,video/3gpp,audio/aac,audio/amr,audio/mpeg,audio/mp4,audio/ogg,application/pdf,text/plain,application/msword,application/vnd.ms-excel,application/vnd.ms-powerpoint,application/vnd.openxmlformats-officedocument.wordprocessingml.document,application/vnd.openxmlformats-officedocument.spreadsheetml.sheet,application/vnd.openxmlformats-officedocument.presentationml.presentation";
export const ATTACHMENT_MAX_MB = 16;
/** The files a template's media header takes, by its kind. */
const HEADER_ACCEPT = {
  image: "image/jpeg,image/png",
  video: "video/mp4,video/3gpp",
  document: "application/pdf",
} as const;
/** WhatsApp's longest copy code (the server checks it too). */
const COPY_CODE_MAX = 15;
/** A media header's legend, by its kind. */
const headerLegend = (kind: keyof typeof HEADER_ACCEPT) =>
  kind === "image"
    ? m.inbox_template_header_image()
    : kind === "video"
      ? m.inbox_template_header_video()
      : m.inbox_template_header_document();

function FieldError({ id, message }: { id: string; message?: string }) {
  if (!message) return null;
  return (
    <p id={id} role="alert" className="mt-1 text-sm text-red-700">
      {message}
    </p>
  );
}

/**
 * The reply form. Without JavaScript it posts and the page comes back with the message in the
 * thread (or the server's words at the field). With app/assets/live.js it is sent without leaving
 * the page (data-live-send), Enter sends (Shift and Enter a new line), `/` lists the saved answers,
 * a saved answer chosen goes into the message, colleagues see that someone types, and Send waits
 * for a message or a file.
 */
export function ReplyComposer({
  quickReplies,
  replyTo,
  cancelReplyHref,
  failed,
}: {
  quickReplies: { id: string; shortcut: string; body: string }[];
  replyTo: { id: string; text: string } | null;
  cancelReplyHref: string;
  failed: InboxActionData | undefined;
}) {
  const errors = failed?.errors ?? {};
  return (
    <Form method="post" encType="multipart/form-data" className="space-y-2" aria-label={m.inbox_reply()} data-live-send="">
      <input type="hidden" name="intent" value="send" />
      {replyTo ? (
        <div className="flex items-start justify-between gap-2 border-l-2 border-brand-600 bg-slate-50 px-2 py-1 text-xs text-slate-700">
          <input type="hidden" name="replyTo" value={replyTo.id} />
          <span className="truncate">{m.inbox_composer_replying_to({ text: replyTo.text })}</span>
          <Link to={cancelReplyHref} aria-label={m.inbox_composer_cancel_reply()} className="text-slate-500 hover:text-slate-800">
            <X size={14} />
          </Link>
        </div>
      ) : null}
      <div className="relative">
        <label htmlFor="composer-body" className="sr-only">
          {m.inbox_composer_message()}
        </label>
        <textarea
          id="composer-body"
          name="body"
          rows={2}
          maxLength={MAX_TEXT_LENGTH}
          defaultValue={failed?.values?.body ?? ""}
          placeholder={m.inbox_composer_placeholder()}
          aria-invalid={errors.body ? true : undefined}
          aria-describedby={errors.body ? "composer-body-error" : "composer-hint"}
          data-enter-sends=""
          data-typing-signal=""
          data-suggest-from={quickReplies.length ? "composer-quick" : undefined}
          className="block w-full resize-y rounded-lg border border-slate-300 px-3 py-2 text-sm aria-invalid:border-red-500"
        />
      </div>
      <FieldError id="composer-body-error" message={errors.body} />
      <p id="composer-hint" className="sr-only">
        {m.inbox_composer_hint()}
      </p>
      <div className="flex flex-wrap items-center gap-2">
        <label className="inline-flex cursor-pointer items-center gap-1 rounded-lg border border-slate-300 px-2.5 py-1.5 text-xs font-medium text-slate-700 hover:bg-slate-50">
          <Paperclip size={14} /> <span data-file-name={m.inbox_composer_attach()}>{m.inbox_composer_attach()}</span>
          <input
            type="file"
            name="attachment"
            accept={ATTACHMENT_ACCEPT}
            className="sr-only"
            aria-label={m.inbox_composer_attach()}
            aria-invalid={errors.attachment ? true : undefined}
            data-file-label=""
            data-max-bytes={ATTACHMENT_MAX_MB * 1024 * 1024}
            data-too-big={m.inbox_attachment_too_big({ max: ATTACHMENT_MAX_MB })}
            data-error-id="composer-attachment-error"
          />
        </label>
        {quickReplies.length ? (
          <>
            <label htmlFor="composer-quick" className="sr-only">
              {m.inbox_composer_saved_answer()}
            </label>
            <select
              id="composer-quick"
              name="quickReply"
              defaultValue=""
              data-inserts-into="composer-body"
              data-suggest-label={m.inbox_quick_title()}
              className="max-w-44 rounded-lg border border-slate-300 px-2 py-1.5 text-xs"
            >
              <option value="">{m.inbox_composer_saved_answer_option()}</option>
              {quickReplies.map((q) => (
                <option key={q.id} value={q.id} data-body={q.body}>
                  /{q.shortcut}
                </option>
              ))}
            </select>
          </>
        ) : null}
        <Button type="submit" size="sm" className="ml-auto" aria-label={m.inbox_composer_send()} data-needs-any="body attachment">
          <Send size={14} /> {m.inbox_composer_send()}
        </Button>
      </div>
      <FieldError id="composer-attachment-error" message={errors.attachment} />
    </Form>
  );
}

/** An internal note: saved in the thread for the team, never sent (sent without leaving the page, as the reply). */
export function NoteForm({ failed }: { failed: InboxActionData | undefined }) {
  return (
    <details id="note-details" className="text-sm" open={!!failed?.errors?.note}>
      <summary className="cursor-pointer text-xs font-medium text-slate-600 hover:text-slate-900">{m.inbox_note_add()}</summary>
      <Form method="post" className="mt-2 space-y-2" data-live-send="">
        <label htmlFor="note-body" className="sr-only">
          {m.inbox_note_label()}
        </label>
        <textarea
          id="note-body"
          name="note"
          rows={2}
          maxLength={MAX_NOTE_LENGTH}
          defaultValue={failed?.values?.note ?? ""}
          placeholder={m.inbox_note_placeholder()}
          aria-invalid={failed?.errors?.note ? true : undefined}
          className="block w-full rounded-lg border border-amber-300 bg-amber-50 px-3 py-2 text-sm"
        />
        <FieldError id="note-error" message={failed?.errors?.note} />
        <Button type="submit" name="intent" value="note" size="sm" variant="secondary">
          {m.inbox_note_save()}
        </Button>
      </Form>
    </details>
  );
}

/** The window is closed: a template is the only way in. Choosing one (a GET) shows its values; sending posts them. */
export function TemplatePicker({
  templates,
  chosen,
  pickerAction,
  failed,
  windowText,
}: {
  templates: ReplyTemplateView[];
  chosen: ReplyTemplateView | null;
  pickerAction: string;
  failed: InboxActionData | undefined;
  windowText: string;
}) {
  const errors = failed?.errors ?? {};
  return (
    <div className="space-y-3" data-testid="template-picker">
      <Notice tone="warning">{windowText}</Notice>
      {templates.length ? (
        <Form method="get" action={pickerAction} className="flex items-end gap-2">
          <label className="block flex-1 text-sm font-medium text-slate-700">
            {m.inbox_template_label()}
            <select
              name="template"
              defaultValue={chosen?.id ?? ""}
              className="mt-1 block w-full rounded-lg border border-slate-300 px-2 py-2 text-sm"
              data-submits=""
            >
              <option value="">{m.inbox_template_choose_option()}</option>
              {templates.map((t) => (
                <option key={t.id} value={t.id}>
                  {t.name} ({t.language}, {t.category})
                </option>
              ))}
            </select>
          </label>
          <Button type="submit" variant="secondary" size="sm">
            {m.inbox_template_choose()}
          </Button>
        </Form>
      ) : (
        <p className="text-sm text-slate-600">
          {m.inbox_template_none()}{" "}
          <TextLink to="/templates" weight="medium" underline="hover">
            {m.inbox_template_create_link()}
          </TextLink>
          .
        </p>
      )}
      {chosen ? (
        <Form
          method="post"
          className="space-y-2"
          aria-label={m.inbox_template_send_label()}
          encType={chosen.headerMedia ? "multipart/form-data" : undefined}
        >
          <input type="hidden" name="template" value={chosen.id} />
          <div className="rounded-lg border border-slate-200 bg-white p-3 text-sm">
            {chosen.header ? <p className="font-semibold">{chosen.header}</p> : null}
            <p className="whitespace-pre-wrap">{chosen.body}</p>
            {chosen.footer ? <p className="text-xs text-slate-500">{chosen.footer}</p> : null}
          </div>
          {chosen.headerTakesValue ? (
            <label className="block text-sm font-medium text-slate-700">
              {m.inbox_template_header_value()}
              <input
                name="headerText"
                required
                maxLength={60}
                defaultValue={failed?.values?.headerText ?? ""}
                className="mt-1 block w-full rounded-lg border border-slate-300 px-3 py-2 text-sm"
              />
            </label>
          ) : null}
          {chosen.headerMedia ? (
            <fieldset className="space-y-2 rounded-lg border border-slate-200 p-3">
              <legend className="px-1 text-sm font-medium text-slate-700">{headerLegend(chosen.headerMedia)}</legend>
              <label className="block text-sm text-slate-700">
                {m.inbox_template_upload()}
                <input
                  type="file"
                  name="attachment"
                  accept={HEADER_ACCEPT[chosen.headerMedia]}
                  aria-invalid={errors.attachment ? true : undefined}
                  aria-describedby={errors.attachment ? "attachment-error" : undefined}
                  className="mt-1 block w-full text-sm"
                />
                <FieldError id="attachment-error" message={errors.attachment} />
              </label>
              <label className="block text-sm text-slate-700">
                {m.inbox_template_link()}
                <input
                  type="text"
                  name="headerLink"
                  inputMode="url"
                  maxLength={2048}
                  defaultValue={failed?.values?.headerLink ?? ""}
                  aria-invalid={errors.headerLink ? true : undefined}
                  aria-describedby={errors.headerLink ? "headerLink-error" : undefined}
                  className="mt-1 block w-full rounded-lg border border-slate-300 px-3 py-2 text-sm"
                />
                <FieldError id="headerLink-error" message={errors.headerLink} />
              </label>
            </fieldset>
          ) : null}
          {chosen.parameters.map((name, i) => (
            <label key={name} className="block text-sm font-medium text-slate-700">
              {m.inbox_template_value_of({ placeholder: `{{${name}}}` })}
              <input
                name={`p${i + 1}`}
                required
                maxLength={1024}
                defaultValue={failed?.values?.[`p${i + 1}`] ?? ""}
                aria-invalid={errors[`p${i + 1}`] ? true : undefined}
                className="mt-1 block w-full rounded-lg border border-slate-300 px-3 py-2 text-sm"
              />
              <FieldError id={`p${i + 1}-error`} message={errors[`p${i + 1}`]} />
            </label>
          ))}
          {chosen.buttons.map((button) => {
            const name = `b${button.index}`;
            return (
              <label key={name} className="block text-sm font-medium text-slate-700">
                {button.kind === "url"
                  ? m.inbox_template_button_link({ button: button.text, url: button.url ?? "" })
                  : m.inbox_template_copy_code({ max: COPY_CODE_MAX })}
                <input
                  name={name}
                  required
                  maxLength={button.kind === "copy_code" ? COPY_CODE_MAX : 2048}
                  defaultValue={failed?.values?.[name] ?? ""}
                  aria-invalid={errors[name] ? true : undefined}
                  aria-describedby={errors[name] ? `${name}-error` : undefined}
                  className="mt-1 block w-full rounded-lg border border-slate-300 px-3 py-2 text-sm"
                />
                <FieldError id={`${name}-error`} message={errors[name]} />
              </label>
            );
          })}
          <FieldError id="template-error" message={errors.template} />
          <Button type="submit" name="intent" value="template" size="sm">
            <Send size={14} /> {m.inbox_template_send()}
          </Button>
        </Form>
      ) : (
        <FieldError id="template-error" message={errors.template} />
      )}
    </div>
  );
}
