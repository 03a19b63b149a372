import { data, Form, href, Link, redirect } from "react-router";
import type { Route } from "./+types/new";
import { requireUserWithPermission } from "~/.server/domains/auth/guards";
import { readForm } from "~/.server/infrastructure/http/forms";
import { postedTexts } from "~/.server/infrastructure/http/posted-fields";
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

// A document without React, as the rest of the inbox (decision 069): a search and a post.
export const handle: PermissionHandle & PageHandle = { permission: "inbox:reply", ...menuDocumentPage };

/** The search box's longest text (the server cuts a longer one). */
const START_SEARCH_MAX_CLIENT = 100;

export const meta: Route.MetaFunction = () => [{ title: "New conversation | Chat | Jumbe" }];

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
  const current = await requireUserWithPermission(args, "inbox:reply");
  const organizationId = current.organization.id;
  const params = args.url.searchParams;
  const numbers = await startNumbers(organizationId);
  const contactId = params.get("contact");
  const contact = contactId ? await startContact(organizationId, contactId) : null;
  if (contactId && !contact) throw data("No such contact in your organisation.", { status: 404 });
  if (contact && numbers.length === 1) {
    const existing = await existingConversation(organizationId, contact.id, numbers[0]!.id);
    if (existing) throw redirect(href("/chat/:id", { id: existing }));
  }
  const q = (params.get("q") ?? "").trim().slice(0, START_SEARCH_MAX);
  const matches = !contact && q ? await searchStartContacts(organizationId, q) : [];
  return { numbers, contact, q, matches };
}

export async function action(args: Route.ActionArgs) {
  const current = await requireUserWithPermission(args, "inbox:reply");
  const form = await readForm(args.request);
  const posted = postedTexts(form, ["contactId", "phone", "number"]);
  const values = {
    contactId: posted.contactId.slice(0, 100),
    phone: posted.phone.slice(0, 100),
    number: posted.number.slice(0, 100),
  };
  try {
    const { conversationId } = await startConversation(
      { organizationId: current.organization.id, userId: current.user.id },
      { contactId: values.contactId, phone: values.phone, phoneNumberId: values.number },
    );
    return redirect(href("/chat/:id", { id: conversationId }));
  } catch (error) {
    const refusal = refusalOf(error);
    throwIfNotFound(refusal);
    return data<StartActionData>({ errors: { [refusal.field ?? "form"]: refusal.message }, values }, { status: refusal.status });
  }
}

export const clientLoader = loadAsDocument;

export default function NewConversation({ loaderData, actionData }: Route.ComponentProps) {
  const { numbers, contact, q, matches } = loaderData;
  const failed = actionData as StartActionData | undefined;
  const errors = failed?.errors ?? {};
  const chosenId = failed?.values.contactId ?? "";
  return (
    <div className="mx-auto max-w-2xl space-y-4">
      <BackLink to={href("/chat")}>Chat</BackLink>
      <h1 className="text-2xl font-semibold text-slate-900">New conversation</h1>
      {!numbers.length ? (
        <Notice tone="warning">
          Connect a WhatsApp number first: customers get your messages from it.{" "}
          <Link to={href("/whatsapp")} className="font-medium underline">
            Connect WhatsApp
          </Link>
        </Notice>
      ) : (
        <>
          {contact ? null : (
            <Card>
              <CardHeader title="Find a contact" description="Search your contacts by name or number." />
              <Form method="get" className="mt-3 flex items-end gap-2" role="search">
                <div className="flex-1">
                  <Field label="Name or number" name="q" type="search" defaultValue={q} maxLength={START_SEARCH_MAX_CLIENT} />
                </div>
                <Button type="submit" variant="secondary">
                  Search
                </Button>
              </Form>
            </Card>
          )}
          <Card>
            <Form method="post" className="space-y-4" aria-label="Start the conversation">
              <FormError id="form-error" errors={errors.form ? [errors.form] : undefined} />
              {contact ? (
                <div>
                  <p className="text-sm font-medium text-slate-700">To</p>
                  <p className="text-slate-900" data-testid="chosen-contact">
                    {contact.name}
                    {contact.phone && contact.phone !== contact.name ? ` (${contact.phone})` : ""}
                  </p>
                  {contact.optedOut ? <p className="mt-1 text-sm text-amber-800">{contact.name} opted out of your messages.</p> : null}
                  <input type="hidden" name="contactId" value={contact.id} />
                  <Link to={href("/chat/new")} className="text-sm font-medium text-brand-700 hover:underline">
                    Write to someone else
                  </Link>
                </div>
              ) : (
                <>
                  {q ? (
                    matches.length ? (
                      <fieldset>
                        <legend className="mb-1 block text-sm font-medium text-slate-700">Contacts matching “{q}”</legend>
                        <div className="grid gap-2">
                          {matches.map((m) => (
                            <label
                              key={m.id}
                              className="flex cursor-pointer items-center gap-3 rounded-lg border border-slate-200 px-3 py-2 hover:bg-slate-50 has-checked:border-brand-600 has-checked:bg-brand-50"
                            >
                              <input type="radio" name="contactId" value={m.id} defaultChecked={m.id === chosenId} />
                              <span>
                                <span className="font-medium text-slate-900">{m.name}</span>
                                {m.phone && m.phone !== m.name ? <span className="text-slate-600"> {m.phone}</span> : null}
                                {m.optedOut ? <span className="text-sm text-amber-800"> (opted out)</span> : null}
                              </span>
                            </label>
                          ))}
                        </div>
                      </fieldset>
                    ) : (
                      <p className="text-sm text-slate-600">No contact matches “{q}”. Type their number below instead.</p>
                    )
                  ) : null}
                  <Field
                    label={matches.length ? "Or type a phone number" : "Phone number"}
                    name="phone"
                    type="tel"
                    autoComplete="off"
                    inputMode="tel"
                    maxLength={30}
                    placeholder="0712 345 678"
                    hint="A number that is not a contact yet becomes one."
                    defaultValue={failed?.values.phone ?? ""}
                    errors={errors.phone ? [errors.phone] : undefined}
                  />
                </>
              )}
              {numbers.length > 1 ? (
                <SelectField
                  label="Write from"
                  name="number"
                  defaultValue={failed?.values.number ?? ""}
                  errors={errors.number ? [errors.number] : undefined}
                  options={[{ value: "", label: "Choose a number…" }, ...numbers.map((n) => ({ value: n.id, label: n.label }))]}
                />
              ) : (
                <p className="text-sm text-slate-600">From {numbers[0]!.label}</p>
              )}
              <p className="text-sm text-slate-600">
                When the customer has not written in the last 24 hours, WhatsApp takes only an approved template: you choose it next.
              </p>
              <Button type="submit">Start conversation</Button>
            </Form>
          </Card>
        </>
      )}
    </div>
  );
}

export const ErrorBoundary = PageErrorBoundary;
