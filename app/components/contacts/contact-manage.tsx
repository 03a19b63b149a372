import { Form, href } from "react-router";
import type { ContactView } from "~/.server/domains/contacts/views";
import { Download, GitMerge, Trash2, UserX } from "~/components/ui/icons";
import { Button, ButtonLink, buttonClass } from "~/components/ui/button";
import { Card, CardHeader } from "~/components/ui/card";
import { FilterInput } from "~/components/ui/field";
import { m } from "~/paraglide/messages";

interface MergeCardProps {
  contact: ContactView;
  mergeQuery: string;
  candidates: { id: string; name: string; phone: string | null }[] | null;
}

/** Find a duplicate by name or number (a GET form) and merge it into this contact after a confirmation. */
export function MergeCard({ contact, mergeQuery, candidates }: MergeCardProps) {
  const here = href("/messaging/contacts/:id", { id: contact.id });
  return (
    <Card>
      <CardHeader title={m.messaging_contact_merge_card_title()} description={m.messaging_contact_merge_card_description()} />
      <Form method="get" className="mt-4 flex flex-wrap items-end gap-3">
        <FilterInput
          label={m.messaging_contact_merge_find()}
          type="search"
          name="merge"
          defaultValue={mergeQuery}
          placeholder={m.messaging_contact_merge_placeholder()}
        />
        <Button type="submit" variant="secondary">
          {m.messaging_search()}
        </Button>
      </Form>
      {candidates ? (
        candidates.length ? (
          <ul className="mt-3 divide-y divide-slate-100" aria-label={m.messaging_contact_merge_candidates()}>
            {candidates.map((c) => (
              <li key={c.id} className="flex items-center justify-between gap-3 py-2 text-sm">
                <span>
                  {c.name} <span className="text-slate-500 tabular-nums">{c.phone}</span>
                </span>
                <ButtonLink to={`${here}?confirm=merge&other=${c.id}`} variant="secondary" size="sm">
                  <GitMerge className="size-4" aria-hidden /> {m.messaging_contact_merge_into({ name: contact.name })}
                </ButtonLink>
              </li>
            ))}
          </ul>
        ) : (
          <p className="mt-3 text-sm text-slate-600">{m.messaging_contact_merge_none()}</p>
        )
      ) : null}
    </Card>
  );
}

/** The person's rights: a copy of their data, erasure, and deletion. */
export function RightsCard({ contactId }: { contactId: string }) {
  const here = href("/messaging/contacts/:id", { id: contactId });
  return (
    <Card>
      <CardHeader title={m.messaging_contact_rights_title()} description={m.messaging_contact_rights_description()} />
      <div className="mt-4 flex flex-wrap gap-2">
        {/* A file: a plain link the browser downloads, with or without JavaScript. */}
        <a href={href("/messaging/contacts/:id/data.json", { id: contactId })} download className={buttonClass("secondary")}>
          <Download className="size-4" aria-hidden /> {m.messaging_contact_rights_download()}
        </a>
        <ButtonLink to={`${here}?confirm=erase`} variant="secondary">
          <UserX className="size-4" aria-hidden /> {m.messaging_contact_rights_erase()}
        </ButtonLink>
        <ButtonLink to={`${here}?confirm=delete`} variant="danger">
          <Trash2 className="size-4" aria-hidden /> {m.messaging_delete()}
        </ButtonLink>
      </div>
    </Card>
  );
}
