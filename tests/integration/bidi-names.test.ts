import { describe, expect, it } from "vitest";
import { rawQuery } from "~/.server/infrastructure/db/client";
import { drainJobs } from "~/.server/infrastructure/jobs/worker";
import { registerJobHandlers } from "~/.server/composition/job-handlers";
import { inviteMember } from "~/.server/domains/team/invitations";
import { handleApiV1 } from "~/.server/adapters/api-v1/handle";
import { text } from "node:stream/consumers";
import { getImport, IMPORT_QUEUE, openRejectedRows, startImport, suggestMapping, uploadImport } from "~/.server/domains/contacts/import";
import { runJobBatch } from "~/.server/infrastructure/jobs/worker";
import { withoutBidiControls } from "~/lib/names";
import * as keyApi from "~/routes/api/developer.api-key";
import * as signupPage from "~/routes/auth/signup";
import { createVerifiedUser, latestMailTo, META, signedInCookie, uniqueEmail } from "../support/accounts";
import { APP, formRequest, getRequest, jsonRequest, run } from "../support/http";
import { appFetch } from "../support/in-process-app";

// Issue 38, item 10a: names accepted the right-to-left override (U+202E), so an organisation or a
// contact could be named to read as something else in the console ("Acme" + U+202E + "txt.exe"
// shows as "Acmeexe.txt"). Every name is now taken without bidirectional controls, a name of
// nothing else is refused as missing, and names stored before show without them in the console.

registerJobHandlers();

const RLO = "\u202E";
/** Every bidirectional control that goes: embeddings and overrides, isolates, LRM, RLM and the Arabic letter mark. */
const ONLY_CONTROLS = "\u202A\u202B\u202C\u202D\u202E\u2066\u2067\u2068\u2069\u200E\u200F\u061C";

const names = (organizationId: string) =>
  rawQuery<{ organisation: string; first_name: string; last_name: string }>(
    `select o.name as organisation, u.first_name, u.last_name from organizations o join users u on u.organization_id = o.id
     where o.id = $1 order by u.created_at`,
    [organizationId],
  );

/** A page's markup without its scripts (React Router's data for the browser is not what the page shows). */
async function shown(response: Response) {
  return (await response.text()).replace(/<script\b[\s\S]*?<\/script>/g, "");
}

async function owner(businessName = "Nyota Savings Sacco") {
  const account = await createVerifiedUser({ businessName });
  return { ...account, organizationId: account.organization.id, cookie: await signedInCookie(account.email, account.password) };
}

describe("names without bidirectional controls", () => {
  it("drops them from every control character the name schemas know, and nothing else", () => {
    expect(withoutBidiControls(`Duka${RLO}gnp.exe`)).toBe("Dukagnp.exe");
    expect(withoutBidiControls(ONLY_CONTROLS)).toBe("");
    // Right-to-left scripts themselves are names like any other.
    expect(withoutBidiControls("مريم Wanjiru")).toBe("مريم Wanjiru");
  });

  it("signs up with the person's and the organisation's names cleaned, and refuses names of nothing else", async () => {
    const honeypot = (await run<{ honeypot: Record<string, string> }>(signupPage.loader, getRequest("/signup"))).data.honeypot;
    const fields = (email: string, names: Record<string, string>) => ({
      firstName: "Wanjiku",
      lastName: "Mwangi",
      businessName: "Mama Mboga Supplies",
      email,
      password: "Karibu#2026",
      confirmPassword: "Karibu#2026",
      agreedToTerms: "on",
      [honeypot.nameFieldName!]: "",
      [honeypot.validFromFieldName!]: honeypot.encryptedValidFrom!,
      ...names,
    });
    const email = uniqueEmail();
    const signedUp = await run(
      signupPage.action,
      formRequest("/signup", fields(email, { firstName: `Wanjiku${RLO}`, businessName: `Duka ${RLO}gnp.exe` })),
    );
    expect(signedUp.status).toBe(200);
    const [created] = await rawQuery<{ organization_id: string }>(`select organization_id from users where email = $1`, [email]);
    expect(await names(created!.organization_id)).toEqual([{ organisation: "Duka gnp.exe", first_name: "Wanjiku", last_name: "Mwangi" }]);

    const refusedEmail = uniqueEmail();
    const refused = await run(signupPage.action, formRequest("/signup", fields(refusedEmail, { lastName: ONLY_CONTROLS })));
    expect(refused.status).toBe(400);
    expect(JSON.stringify(refused.data)).toContain("Please fill in all required fields.");
    const api = await appFetch(
      jsonRequest("/api/auth/signup", {
        firstName: ONLY_CONTROLS,
        lastName: "Mwangi",
        email: refusedEmail,
        password: "Karibu#2026",
        confirmPassword: "Karibu#2026",
      }),
    );
    expect(api.status).toBe(400);
    expect(await api.text()).toContain("Please fill in all required fields.");
    expect(await rawQuery(`select 1 from users where email = $1`, [refusedEmail])).toEqual([]);
  });

  it("renames the organisation in its settings and on the profile page without them", async () => {
    const t = await owner();
    const details = { kraPin: "", postalAddress: "", county: "Nakuru", industry: "sacco", timeZone: "Africa/Nairobi" };
    const renamed = await appFetch(formRequest("/settings/organisation", { ...details, name: `Nyota ${RLO}Sacco` }, { cookie: t.cookie }));
    expect(renamed.status).toBe(302);
    expect((await names(t.organizationId))[0]!.organisation).toBe("Nyota Sacco");

    const empty = await appFetch(formRequest("/settings/organisation", { ...details, name: ONLY_CONTROLS }, { cookie: t.cookie }));
    expect(empty.status).toBe(400);
    expect(await empty.text()).toContain("Organisation name is required");
    const profile = await appFetch(
      formRequest("/profile", { intent: "save", businessName: ` ${ONLY_CONTROLS} `, email: t.email }, { cookie: t.cookie }),
    );
    expect(profile.status).toBe(400);
    expect(await profile.text()).toContain("Business name is required");
    expect((await names(t.organizationId))[0]!.organisation).toBe("Nyota Sacco");
  });

  it("takes a contact's name without them from the form, the public API and a CSV import", async () => {
    const t = await owner();
    const added = await appFetch(
      formRequest("/messaging/contacts", { intent: "add", name: `Baraka ${RLO}Otieno`, phone: "0712 345 001" }, { cookie: t.cookie }),
    );
    expect(added.status).toBe(302);
    const refusedForm = await appFetch(
      // Posted where the Add contact dialog posts (the page's address with the dialog open), which draws the dialog with its error.
      formRequest("/messaging/contacts?dialog=add", { intent: "add", name: ONLY_CONTROLS, phone: "0712 345 002" }, { cookie: t.cookie }),
    );
    expect(refusedForm.status).toBe(400);
    expect(await refusedForm.text()).toContain("Give the contact a name.");

    const key = (await run(keyApi.loader, getRequest("/api/developer/api-key", { cookie: t.cookie }))).data.key as string;
    const api = (body: unknown) =>
      handleApiV1(
        new Request(`${APP}/api/v1/contacts`, {
          method: "POST",
          headers: { Authorization: `Bearer ${key}`, "Content-Type": "application/json" },
          body: JSON.stringify(body),
        }),
      );
    const created = await api({ name: `Amina${RLO} Njeri`, phone: "0712 345 003" });
    expect(created.status).toBe(200);
    expect(await created.json()).toMatchObject({ name: "Amina Njeri" });
    const refusedApi = await api({ name: ONLY_CONTROLS, phone: "0712 345 004" });
    expect(refusedApi.status).toBe(400);
    expect(await refusedApi.json()).toMatchObject({ code: "invalid_request" });

    const actor = { organizationId: t.organizationId, userId: t.user.id };
    const csv = `name,phone\r\nJuma${RLO} Hassan,0712345005\r\n${ONLY_CONTROLS},0712345006\r\n`;
    const uploaded = await uploadImport(actor, {
      body: new Blob([
        `--b\r\nContent-Disposition: form-data; name="file"; filename="wateja.csv"\r\nContent-Type: text/csv\r\n\r\n${csv}\r\n--b--\r\n`,
      ]).stream(),
      boundary: "b",
    });
    await startImport(actor, uploaded.id, { duplicates: "skip", mapping: suggestMapping(uploaded.columns, new Map()) });
    while (await runJobBatch(IMPORT_QUEUE));
    const done = await getImport(t.organizationId, uploaded.id);
    expect(done.hasRejected).toBe(true);
    expect(await text((await openRejectedRows(t.organizationId, done.id)).stream)).toContain("Give the contact a name.");

    const book = await rawQuery<{ name: string; phone: string }>(
      `select name, phone from contacts where organization_id = $1 order by phone`,
      [t.organizationId],
    );
    expect(book).toEqual([
      { name: "Baraka Otieno", phone: "+254712345001" },
      { name: "Amina Njeri", phone: "+254712345003" },
      { name: "Juma Hassan", phone: "+254712345005" },
    ]);
  });

  it("takes a new member's name and the owner's name an administrator edits without them", async () => {
    const t = await owner("Kaunti ya Nakuru");
    const [actor] = await rawQuery<{ id: string; email: string; first_name: string; last_name: string }>(
      `select id, email, first_name, last_name from users where id = $1`,
      [t.user.id],
    );
    const email = uniqueEmail("member");
    await inviteMember(
      {
        user: { id: actor!.id, email: actor!.email, firstName: actor!.first_name, lastName: actor!.last_name },
        organization: { id: t.organizationId, name: "Kaunti ya Nakuru" },
        role: "owner",
      },
      { email, role: "agent" },
      META,
    );
    await drainJobs();
    const token = (await latestMailTo(email))!.textBody.match(/\/invitations\/([\w-]+)/)![1]!;
    const join = (firstName: string) =>
      appFetch(
        formRequest(`/invitations/${token}`, {
          firstName,
          lastName: `Kamau${RLO}`,
          newPassword: "Member#Pass1",
          confirmPassword: "Member#Pass1",
        }),
      );
    const refused = await join(ONLY_CONTROLS);
    expect(refused.status).toBe(400);
    expect(await refused.text()).toContain("First name is required");
    expect((await join(`${RLO}Wanjiru`)).status).toBe(302);
    expect(await rawQuery(`select first_name, last_name from users where email = $1`, [email])).toEqual([
      { first_name: "Wanjiru", last_name: "Kamau" },
    ]);

    const admin = await createVerifiedUser({ usertype: "admin", businessName: "Jumbe Platform" });
    const cookie = await signedInCookie(admin.email, admin.password);
    const edit = (firstName: string) =>
      appFetch(
        formRequest(
          `/admin/users/${t.organizationId}?dialog=edit`,
          {
            intent: "edit",
            plan: "Starter",
            messageLimit: "1000",
            status: "active",
            firstName,
            lastName: "Otieno",
            email: t.email,
            phone: "",
          },
          { cookie },
        ),
      );
    const refusedEdit = await edit(` ${ONLY_CONTROLS}`);
    expect(refusedEdit.status).toBe(400);
    expect(await refusedEdit.text()).toContain("First name is required.");
    expect((await edit(`Brian${RLO}`)).status).toBe(302);
    expect((await names(t.organizationId))[0]).toMatchObject({ first_name: "Brian", last_name: "Otieno" });
  });

  it("shows a name stored before without them, isolated, in the admin console", async () => {
    const t = await createVerifiedUser({ businessName: `Acme${RLO}txt.exe` });
    await rawQuery(`update users set first_name = $2 where id = $1`, [t.user.id, `${RLO}nimda`]);
    const admin = await createVerifiedUser({ usertype: "admin", businessName: "Jumbe Platform" });
    const cookie = await signedInCookie(admin.email, admin.password);

    const list = await appFetch(getRequest("/admin/users", { cookie, headers: { accept: "text/html" } }));
    expect(list.status).toBe(200);
    const listed = await shown(list);
    expect(listed).toContain("<bdi>Acmetxt.exe</bdi>");
    expect(listed).not.toContain(RLO);

    const page = await appFetch(getRequest(`/admin/users/${t.organization.id}`, { cookie, headers: { accept: "text/html" } }));
    expect(page.status).toBe(200);
    const detail = await shown(page);
    expect(detail).toContain("<title>Acmetxt.exe | Users | Admin console | Jumbe</title>");
    expect(detail).toMatch(/<h1[^>]*><bdi>Acmetxt\.exe<\/bdi><\/h1>/);
    expect(detail).toContain("<bdi>nimda User</bdi>");
    expect(detail).not.toContain(RLO);

    // The bell's sign-up event names the organisation too.
    const bell = await appFetch(getRequest("/admin/notifications", { cookie, headers: { accept: "text/html" } }));
    expect(bell.status).toBe(200);
    const events = await shown(bell);
    expect(events).toContain("<bdi>New sign-up: Acmetxt.exe</bdi>");
    expect(events).not.toContain(RLO);
  });
});
