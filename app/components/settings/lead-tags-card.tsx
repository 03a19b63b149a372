import { Form } from "react-router";
import { getFormProps, getInputProps } from "~/components/ui/form-state";
import { Card, CardHeader } from "~/components/ui/card";
import { Button } from "~/components/ui/button";
import { Field, FormError } from "~/components/ui/field";
import { lazySchema, useSchemaForm } from "~/components/ui/use-schema-form";
import { m } from "~/paraglide/messages";

const lazyLeadTagsSchema = lazySchema(() => import("~/lib/schemas/ad-conversions"), "LeadTagsSchema");

/**
 * Settings → Ads: the tags that mean "converted" (decision 158), typed as a list; a plain form post,
 * so it works without JavaScript. Members who may not change it read the list.
 */
export function LeadTagsCard({
  leadTags,
  enabled,
  canManage,
  result,
}: {
  leadTags: string[];
  enabled: boolean;
  canManage: boolean;
  result: Parameters<typeof useSchemaForm>[1];
}) {
  const [form, fields] = useSchemaForm(lazyLeadTagsSchema, result, {
    id: "lead-tags",
    defaultValue: { leadTags: leadTags.join(", ") },
  });
  return (
    <Card>
      <CardHeader title={m.ads_lead_tags_title()} description={m.ads_lead_tags_description()} />
      <p className="mt-3 text-sm break-words text-slate-700" data-testid="lead-tags">
        {leadTags.length ? m.ads_lead_tags_current({ tags: leadTags.join(", ") }) : m.ads_lead_tags_none()}
      </p>
      {enabled ? null : <p className="mt-2 text-sm text-slate-600">{m.ads_lead_tags_off_note()}</p>}
      {canManage ? (
        <Form method="post" {...getFormProps(form)} className="mt-4 max-w-md space-y-3">
          <FormError id={form.errorId} errors={form.errors} />
          <Field
            label={m.ads_lead_tags_label()}
            hint={m.ads_lead_tags_hint()}
            autoComplete="off"
            spellCheck={false}
            errors={fields.leadTags.errors}
            {...getInputProps(fields.leadTags, { type: "text" })}
            key={fields.leadTags.key}
          />
          <Button type="submit" name="intent" value="lead-tags">
            {m.ads_lead_tags_save()}
          </Button>
        </Form>
      ) : null}
    </Card>
  );
}
