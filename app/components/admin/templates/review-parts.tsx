import { Form } from "react-router";
import { getFormProps, type SubmissionResult } from "~/components/ui/form-state";
import { Button } from "~/components/ui/button";
import { Card, CardBody, CardHeader } from "~/components/ui/card";
import { TextareaField } from "~/components/ui/field";
import { useServerCheckedForm } from "~/components/ui/use-schema-form";
import { formatWhen } from "~/lib/dates";
import { m } from "~/paraglide/messages";

/** One event of a template's history, with its words. */
export interface TemplateHistoryEvent {
  id: number;
  words: string;
  source: string;
  actorEmail?: string | null;
  createdAt: string;
  reason?: string | null;
}

/** What the organisation did, what Jumbe's review decided and what Meta said, oldest first. */
export function TemplateHistory({ history, importedFromMeta }: { history: TemplateHistoryEvent[]; importedFromMeta: boolean }) {
  return (
    <Card aria-labelledby="history">
      <CardHeader id="history" title={m.admin_history()} description={m.admin_history_intro()} />
      <CardBody>
        {history.length ? (
          <ol className="space-y-3 border-l border-slate-200 pl-4">
            {history.map((event) => (
              <li key={event.id} className="text-sm">
                <p>
                  <span className="font-medium text-slate-900">{event.words}</span>{" "}
                  <span className="text-slate-500">
                    · {event.source === "meta" ? "Meta" : event.source === "platform" ? "Jumbe" : m.admin_column_organisation()}
                    {event.actorEmail ? ` (${event.actorEmail})` : ""} ·{" "}
                    <time dateTime={event.createdAt}>{formatWhen(event.createdAt)}</time>
                  </span>
                </p>
                {event.reason ? <p className="text-slate-600">{event.reason}</p> : null}
              </li>
            ))}
          </ol>
        ) : (
          <p className="text-sm text-slate-600">{importedFromMeta ? m.admin_history_empty_imported() : m.admin_history_empty()}</p>
        )}
      </CardBody>
    </Card>
  );
}

/** Reject: the template goes back to the organisation with the reason typed (kept when refused). */
export function RejectForm({ result, busy }: { result: SubmissionResult<string[]> | null | undefined; busy: boolean }) {
  const [form, fields] = useServerCheckedForm<{ reason: string }>(result, { id: "reject-template" });
  return (
    <Form method="post" className="space-y-3" {...getFormProps(form)} noValidate>
      <TextareaField
        label={m.admin_reject_reason()}
        name={fields.reason.name}
        maxLength={1000}
        markRequired
        hint={m.admin_reject_reason_hint()}
        defaultValue={fields.reason.initialValue}
        errors={fields.reason.errors ?? form.errors}
        key={fields.reason.key}
      />
      <Button type="submit" name="intent" value="reject" variant="danger" pending={busy}>
        {m.admin_reject()}
      </Button>
    </Form>
  );
}
