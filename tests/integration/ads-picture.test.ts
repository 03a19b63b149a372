import { describe, expect, it, vi } from "vitest";
import { renderToStaticMarkup } from "react-dom/server";
import { createElement } from "react";
import { rawQuery } from "~/.server/infrastructure/db/client";
import { drainJobs } from "~/.server/infrastructure/jobs/worker";
import { findConversation } from "~/.server/domains/inbox/list";
import { adPictureAllowed } from "~/.server/infrastructure/clients/ad-pictures";
import { loader as pictureLoader } from "~/routes/app/chat/ad-picture";
import { AdEntry } from "~/components/inbox/ad-entry";
import type { InboundAd } from "@jumbe/sandbox/meta/types";
import { createVerifiedUser, signedInCookie } from "../support/accounts";
import { getRequest, run } from "../support/http";
import { metaSandboxForFile } from "../support/meta-harness";

// Issue 77: the ad's picture is on Meta's CDN (outside the pages' CSP): a job fetches it once into
// storage, and the inbox's "From ad" shows it from Jumbe, behind the inbox's permission. A picture that
// cannot be fetched leaves the header without one, never a broken image.

const meta = metaSandboxForFile();
const sandboxBase = () => meta.graph.graphBase.replace(/\/graph$/, "");

async function tenant(name: string) {
  const user = await createVerifiedUser({ businessName: name });
  const connection = await meta.graph.connect(user.organization.id, name);
  return { organizationId: user.organization.id, cookie: await signedInCookie(user.email, user.password), ...connection };
}

/** The customer writes from the ad; answers the conversation once the webhook and every job it set off (the picture's) ran. */
async function fromAd(phoneNumberId: string, from: string, ad: InboundAd) {
  const { wamid } = await meta.sandbox.sendInbound({ phoneNumberId, from, name: "Achieng Otieno", text: "Habari", ad });
  return await vi.waitFor(
    async () => {
      await drainJobs();
      const [row] = await rawQuery<{ conversation_id: string; ad_id: string; organization_id: string; picture_file_id: string | null }>(
        `select a.conversation_id, a.id as ad_id, a.organization_id, a.picture_file_id from ad_referrals a
         join messages m on m.id = a.message_id where m.wamid = $1`,
        [wamid],
      );
      expect(row).toBeDefined();
      await drainJobs();
      return row!;
    },
    { timeout: 30_000, interval: 20 },
  );
}

const NOW = new Date().toISOString();
const entry = async (organizationId: string, conversationId: string) => {
  const conversation = (await findConversation(organizationId, conversationId))!;
  return {
    ad: conversation.ad,
    html: renderToStaticMarkup(createElement(AdEntry, { ad: conversation.ad, freeEntryUntil: null, now: NOW })),
  };
};

describe("the ad's picture", () => {
  it("is fetched once into storage and shown small from Jumbe, to the tenant only", async () => {
    const mine = await tenant("Maji Safi Ltd");
    const ad = {
      sourceId: "120226305854810726",
      headline: "Maji safi",
      body: "Bei ya leo.",
      imageUrl: `${sandboxBase()}/ad-media/120226305854810726.png`,
    };
    const row = await fromAd(mine.phoneNumberId, "254711222333", ad);
    const [stored] = await rawQuery<{ picture_file_id: string; mime_type: string; size: number }>(
      `select a.picture_file_id, f.mime_type, f.size from ad_referrals a join media_files f on f.id = a.picture_file_id where a.id = $1`,
      [row.ad_id],
    );
    expect(stored).toMatchObject({ mime_type: "image/png" });

    const { ad: shown, html } = await entry(mine.organizationId, row.conversation_id);
    expect(shown?.picture).toBe(`/chat/ads/${row.ad_id}/picture`);
    expect(html).toContain(`src="/chat/ads/${row.ad_id}/picture"`);
    expect(html).toContain('loading="lazy"');
    expect(html).toContain('width="20"');
    expect(html).not.toContain("127.0.0.1");

    const picture = await run(pictureLoader, getRequest(`/chat/ads/${row.ad_id}/picture`, { cookie: mine.cookie }), {
      params: { id: row.ad_id },
    });
    expect(picture.status).toBe(200);
    expect(picture.headers.get("content-type")).toContain("image/png");

    // Another tenant asking for it: not found.
    const other = await tenant("Other Ltd");
    const foreign = await run(pictureLoader, getRequest(`/chat/ads/${row.ad_id}/picture`, { cookie: other.cookie }), {
      params: { id: row.ad_id },
    });
    expect(foreign.status).toBe(404);
  });

  it("leaves the header without a picture when it cannot be fetched: not Meta's CDN, not found, or not a picture", async () => {
    const t = await tenant("Tanki Bora");
    const cases = [
      // Anywhere else than Meta's CDN (or the configured Meta base, the sandbox here): never fetched.
      { from: "254711222401", imageUrl: "http://127.0.0.2:9/ad.png" },
      // The sandbox's CDN stand-in has no such picture (404).
      { from: "254711222402", imageUrl: `${sandboxBase()}/ad-media/not-an-ad.png` },
      // An answer that is no picture (the sandbox's console page, HTML).
      { from: "254711222403", imageUrl: `${sandboxBase()}/graph/v25.0/me` },
    ];
    for (const c of cases) {
      const row = await fromAd(t.phoneNumberId, c.from, {
        sourceId: "120226305854810999",
        headline: "Tanki",
        body: "Tanki bora.",
        imageUrl: c.imageUrl,
      });
      expect(row.picture_file_id, c.imageUrl).toBeNull();
      const { ad, html } = await entry(t.organizationId, row.conversation_id);
      expect(ad?.picture).toBeNull();
      expect(html).not.toContain("<img");
      expect(html).toContain("Tanki");
    }
    expect(await rawQuery(`select 1 from media_files where organization_id = $1`, [t.organizationId])).toEqual([]);
  });

  it("allows only Meta's CDN over https, or the configured Meta base URL's origin", () => {
    const base = "http://127.0.0.1:4010/sandbox/meta/graph";
    expect(adPictureAllowed("https://scontent-jnb1-1.xx.fbcdn.net/v/t45.1600-4/ad.jpg?stp=dst", base)).toBe(true);
    expect(adPictureAllowed("http://scontent.xx.fbcdn.net/ad.jpg", base)).toBe(false);
    expect(adPictureAllowed("https://fbcdn.net.example.com/ad.jpg", base)).toBe(false);
    expect(adPictureAllowed("https://user:pw@scontent.xx.fbcdn.net/ad.jpg", base)).toBe(false);
    expect(adPictureAllowed("http://127.0.0.1:4010/sandbox/meta/ad-media/1234567.png", base)).toBe(true);
    expect(adPictureAllowed("http://127.0.0.1:4011/ad.png", base)).toBe(false);
    expect(adPictureAllowed("not a url", base)).toBe(false);
  });
});
