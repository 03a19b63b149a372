import { data, Form, href, redirect } from "react-router";
import { Link } from "~/components/ui/link";
import type { Route } from "./+types/new";
import { requireDeclaredUser } from "~/.server/domains/auth/guards";
import * as z from "zod/mini";
import { formAction } from "~/.server/domains/auth/form-actions";
import { postedText } from "~/.server/infrastructure/http/posted-fields";
import {
  existingConversation,
  searchStartContacts,
  START_SEARCH_MAX,
  startContact,
  startConversation,
  startNumbers,
} from "~/.server/domains/inbox/start";
import { PageErrorBoundary } from "~/components/layout/page-error";
import { menuDocumentPage, loadAsDocument } from "~/components/layout/document-page";
import { BackLink } from "~/components/ui/back-link";
import { Button } from "~/components/ui/button";
import { Card, CardHeader } from "~/components/ui/card";
import { Field, FormError, SelectField } from "~/components/ui/field";
import { Notice } from "~/components/ui/notice";
import { refusalOf, throwIfNotFound } from "~/.server/infrastructure/http/refusal-reply";
import type { PageHandle } from "~/root";
import type { PermissionHandle } from "~/lib/permissions";
import { m } from "~/paraglide/messages";

// A document without React, as the rest of the inbox (decision 069): a search and a post.
export const handle: PermissionHandle & PageHandle = { permission: "inbox:reply", ...menuDocumentPage };

/** The search box's longest text (the server cuts a longer one). */
const START_SEARCH_MAX_CLIENT = 100;

export const meta: Route.MetaFunction = () => [{ title: m.inbox_new_meta_title() }];

interface StartActionData {
  errors: Partial<Record<"contact" | "phone" | "number" | "form", string>>;
  values: { contactId: string; phone: string; number: string };
}

/**
 * /chat/new: write to one customer first. `contact` preselects a contact (straight to its
 * conversation when there is one with the only number); `q` searches the contacts by name or number.
 * Nothing is created until the form is sent.
 */
export async function loader(args: Route.LoaderArgs) {
  const current = await requireDeclaredUser(args);
  const organizationId = current.organization.id;
  const params = args.url.searchParams;
  const numbers = await startNumbers(organizationId);
  const contactId = params.get("contact");
  const contact = contactId ? await startContact(organizationId, contactId) : null;
  if (contactId && !contact) throw data(m.inbox_new_contact_not_found(), { status: 404 });
  if (contact && numbers.length === 1) {
    const existing = await existingConversation(organizationId, contact.id, numbers[0]!.id);
    if (existing) throw redirect(href("/chat/:id", { id: existing }));
  }
  const q = (params.get("q") ?? "").trim().slice(0, START_SEARCH_MAX);
  const matches = !contact && q ? await searchStartContacts(organizationId, q) : [];
  return { numbers, contact, q, matches };
}

// What the form sends, each cut to 100 characters (a longer one is no contact, number or phone).
const clipped = z.pipe(
  postedText,
  z.transform((text: string) => text.slice(0, 100)),
);
const StartSchema = z.object({ contactId: clipped, phone: clipped, number: clipped });

export async function action(args: Route.ActionArgs) {
  return formAction(args, {
    permission: "inbox:reply",
    schema: StartSchema,
    handle: async ({ value: values, user }) => {
      try {
        const { conversationId } = await startConversation(
          { organizationId: user.organization.id, userId: user.user.id },
          { contactId: values.contactId, phone: values.phone, phoneNumberId: values.number },
        );
        return redirect(href("/chat/:id", { id: conversationId }));
      } catch (error) {
        const refusal = refusalOf(error);
        throwIfNotFound(refusal);
        return data<StartActionData>({ errors: { [refusal.field ?? "form"]: refusal.message }, values }, { status: refusal.status });
      }
    },
  });
}

export const clientLoader = loadAsDocument;

export default function NewConversation({ loaderData, actionData }: Route.ComponentProps) {
  const { numbers, contact, q, matches } = loaderData;
  const failed = actionData as StartActionData | undefined;
  const errors = failed?.errors ?? {};
  const chosenId = failed?.values.contactId ?? "";
  return (
    <div className="mx-auto max-w-2xl space-y-4">
      <BackLink to={href("/chat")}>{m.inbox_chat_title()}</BackLink>
      <h1 className="text-2xl font-semibold text-slate-900">{m.inbox_new_conversation()}</h1>
      {!numbers.length ? (
        <Notice tone="warning">
          {m.inbox_new_connect_first()}{" "}
          <Link to={href("/whatsapp")} className="font-medium underline">
            {m.inbox_new_connect_link()}
          </Link>
        </Notice>
      ) : (
        <>
          {contact ? null : (
            <Card>
              <CardHeader title={m.inbox_new_find_title()} description={m.inbox_new_find_description()} />
              <Form method="get" className="mt-3 flex items-end gap-2" role="search">
                <div className="flex-1">
                  <Field label={m.inbox_new_search_label()} name="q" type="search" defaultValue={q} maxLength={START_SEARCH_MAX_CLIENT} />
                </div>
                <Button type="submit" variant="secondary">
                  {m.inbox_search()}
                </Button>
              </Form>
            </Card>
          )}
          <Card>
            <Form method="post" className="space-y-4" aria-label={m.inbox_new_form_label()}>
              <FormError id="form-error" errors={errors.form ? [errors.form] : undefined} />
              {contact ? (
                <div>
                  <p className="text-sm font-medium text-slate-700">{m.inbox_new_to()}</p>
                  <p className="text-slate-900" data-testid="chosen-contact">
                    {contact.name}
                    {contact.phone && contact.phone !== contact.name ? ` (${contact.phone})` : ""}
                  </p>
                  {contact.optedOut ? <p className="mt-1 text-sm text-amber-800">{m.inbox_new_opted_out({ name: contact.name })}</p> : null}
                  <input type="hidden" name="contactId" value={contact.id} />
                  <Link to={href("/chat/new")} className="text-sm font-medium text-brand-700 hover:underline">
                    {m.inbox_new_someone_else()}
                  </Link>
                </div>
              ) : (
                <>
                  {q ? (
                    matches.length ? (
                      <fieldset>
                        <legend className="mb-1 block text-sm font-medium text-slate-700">{m.inbox_new_matches({ q })}</legend>
                        <div className="grid gap-2">
                          {matches.map((match) => (
                            <label
                              key={match.id}
                              className="flex cursor-pointer items-center gap-3 rounded-lg border border-slate-200 px-3 py-2 hover:bg-slate-50 has-checked:border-brand-600 has-checked:bg-brand-50"
                            >
                              <input type="radio" name="contactId" value={match.id} defaultChecked={match.id === chosenId} />
                              <span>
                                <span className="font-medium text-slate-900">{match.name}</span>
                                {match.phone && match.phone !== match.name ? <span className="text-slate-600"> {match.phone}</span> : null}
                                {match.optedOut ? (
                                  <span className="text-sm text-amber-800">{` ${m.inbox_new_match_opted_out()}`}</span>
                                ) : null}
                              </span>
                            </label>
                          ))}
                        </div>
                      </fieldset>
                    ) : (
                      <p className="text-sm text-slate-600">{m.inbox_new_no_match({ q })}</p>
                    )
                  ) : null}
                  <Field
                    label={matches.length ? m.inbox_new_phone_or() : m.inbox_new_phone()}
                    name="phone"
                    type="tel"
                    autoComplete="off"
                    inputMode="tel"
                    maxLength={30}
                    placeholder="0712 345 678"
                    hint={m.inbox_new_phone_hint()}
                    defaultValue={failed?.values.phone ?? ""}
                    errors={errors.phone ? [errors.phone] : undefined}
                  />
                </>
              )}
              {numbers.length > 1 ? (
                <SelectField
                  label={m.inbox_new_from_label()}
                  name="number"
                  defaultValue={failed?.values.number ?? ""}
                  errors={errors.number ? [errors.number] : undefined}
                  options={[{ value: "", label: m.inbox_new_choose_number() }, ...numbers.map((n) => ({ value: n.id, label: n.label }))]}
                />
              ) : (
                <p className="text-sm text-slate-600">{m.inbox_new_from({ number: numbers[0]!.label })}</p>
              )}
              <p className="text-sm text-slate-600">{m.inbox_new_window_hint()}</p>
              <Button type="submit">{m.inbox_new_start()}</Button>
            </Form>
          </Card>
        </>
      )}
    </div>
  );
}

export const ErrorBoundary = PageErrorBoundary;
