import { Form, href } from "react-router";
import { getFormProps, getInputProps, getTextareaProps } from "~/components/ui/form-state";
import type { QuickReply } from "~/.server/domains/inbox/quick-replies";
import { QuickReplySchema } from "~/lib/schemas/quick-replies";
import { QUICK_REPLY_BODY_MAX, QUICK_REPLY_SHORTCUT_MAX } from "~/lib/schemas/quick-replies-rules";
import { Button, ButtonLink } from "~/components/ui/button";
import { Card, CardHeader } from "~/components/ui/card";
import { Field, FormError, TextareaField } from "~/components/ui/field";
import { lazySchema, useSchemaForm } from "~/components/ui/use-schema-form";
import { formatNumber } from "~/lib/dates";
import { m } from "~/paraglide/messages";

// Loaded when the form is first used (decision 061).
const lazyQuickReplySchema = lazySchema(() => import("~/lib/schemas/quick-replies"), "QuickReplySchema");
const TEXT_INPUT = { type: "text" } as const;

/** The saved-answers page's two forms: add one, and edit one (`?edit=<id>`). */

function QuickReplyFields({ fields }: { fields: ReturnType<typeof useSchemaForm<typeof QuickReplySchema>>[1] }) {
  return (
    <>
      <Field
        label={m.inbox_quick_shortcut()}
        markRequired
        autoComplete="off"
        spellCheck={false}
        hint={m.inbox_quick_shortcut_hint({ max: QUICK_REPLY_SHORTCUT_MAX })}
        errors={fields.shortcut.errors}
        {...getInputProps(fields.shortcut, TEXT_INPUT)}
        key={fields.shortcut.key}
      />
      <TextareaField
        label={m.inbox_quick_answer()}
        markRequired
        hint={m.inbox_quick_answer_hint({ max: formatNumber(QUICK_REPLY_BODY_MAX) })}
        errors={fields.body.errors}
        {...getTextareaProps(fields.body)}
        key={fields.body.key}
      />
    </>
  );
}

export function AddCard({ result }: { result: Parameters<typeof useSchemaForm>[1] }) {
  const [form, fields] = useSchemaForm(lazyQuickReplySchema, result, { id: "add-quick-reply" });
  return (
    <Card>
      <CardHeader title={m.inbox_quick_add_title()} />
      <Form method="post" action={href("/chat/quick-replies")} {...getFormProps(form)} className="mt-4 grid gap-3 sm:max-w-2xl">
        <FormError id={form.errorId} errors={form.errors} />
        <QuickReplyFields fields={fields} />
        <div>
          <Button type="submit" name="intent" value="add">
            {m.inbox_quick_add_button()}
          </Button>
        </div>
      </Form>
    </Card>
  );
}

export function EditCard({
  reply,
  result,
  cancelTo,
}: {
  reply: QuickReply;
  result: Parameters<typeof useSchemaForm>[1];
  cancelTo: string;
}) {
  const [form, fields] = useSchemaForm(lazyQuickReplySchema, result, {
    id: `edit-quick-reply-${reply.id}`,
    defaultValue: { shortcut: reply.shortcut, body: reply.body },
  });
  return (
    <Card>
      <CardHeader title={m.inbox_quick_edit_label({ shortcut: reply.shortcut })} />
      <Form method="post" {...getFormProps(form)} className="mt-4 grid gap-3 sm:max-w-2xl">
        <FormError id={form.errorId} errors={form.errors} />
        <input type="hidden" name="id" value={reply.id} />
        <QuickReplyFields fields={fields} />
        <div className="flex gap-2">
          <Button type="submit" name="intent" value="update">
            {m.inbox_quick_save_changes()}
          </Button>
          <ButtonLink to={cancelTo} variant="secondary">
            {m.inbox_quick_cancel()}
          </ButtonLink>
        </div>
      </Form>
    </Card>
  );
}
