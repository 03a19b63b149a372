import { describe, expect, it } from "vitest";
import { customerFromAd } from "../support/ad-customers";
import { createRule } from "~/.server/domains/automations/rules";
import * as rulePage from "~/routes/app/automations/rule";
import { appFetch } from "../support/in-process-app";
import { createVerifiedUser, signedInCookie } from "../support/accounts";
import { formRequest, getRequest, run } from "../support/http";

// Issue 77: a rule's "Try it" lets the tester say which ad the customer came from (one of the
// organisation's ads, or none) and answers with the rule's "came from an ad" condition considered:
// a rule for an ad does not match a customer from no ad or another ad, a keywordless one matches every
// message from its ad, and an earlier rule for another ad does not answer first. Without JavaScript too.

async function organisation(name: string) {
  const owner = await createVerifiedUser({ businessName: name });
  const actor = { organizationId: owner.organization.id, userId: owner.user.id };
  return { actor, organizationId: owner.organization.id, cookie: await signedInCookie(owner.email, owner.password) };
}
type Org = Awaited<ReturnType<typeof organisation>>;

const MAJI = "120226305854810726";
const TANKI = "120226305854810999";

const tryIt = async (t: Org, id: string, sample: string, fromAd = "") =>
  (
    await run(rulePage.action, formRequest(`/automations/${id}`, { intent: "try", sample, fromAd }, { cookie: t.cookie }), {
      params: { id },
    })
  ).data;

describe("trying a rule as a customer from an ad", () => {
  it("considers the ad the customer came from, and offers the organisation's own ads only", async () => {
    const t = await organisation("Maji Safi Ltd");
    const other = await organisation("Other Ltd");
    await customerFromAd(t.organizationId, { sourceId: MAJI, headline: "Maji safi kwa nyumba yako" }, "+254712000501");
    await customerFromAd(t.organizationId, { sourceId: TANKI, headline: "Tanki la lita 1000" }, "+254712000502");
    await customerFromAd(other.organizationId, { sourceId: "120226305854899999", headline: "Other's ad" }, "+254712000503");

    const tanki = await createRule(t.actor, { name: "Tanki", matchType: "contains", keywords: [], fromAd: TANKI, reply: "Tanki!" });
    const welcome = await createRule(t.actor, {
      name: "Maji welcome",
      matchType: "contains",
      keywords: [],
      fromAd: MAJI,
      reply: "Karibu!",
    });
    const prices = await createRule(t.actor, {
      name: "Ad prices",
      matchType: "contains",
      keywords: ["bei"],
      fromAd: "any",
      reply: "KES 50",
    });

    // The form offers this organisation's ads, not another's.
    const page = await run<{ choices: { ads: { id: string }[] } }>(
      rulePage.loader,
      getRequest(`/automations/${welcome.id}`, { cookie: t.cookie }),
      { params: { id: welcome.id } },
    );
    expect(page.data.choices.ads.map((ad) => ad.id).sort()).toEqual([MAJI, TANKI].sort());

    // From the rule's ad: a keywordless rule answers any message; the Tanki rule before it keeps to its own ad.
    expect((await tryIt(t, welcome.id, "Habari", MAJI)).tried).toEqual({
      sample: "Habari",
      ad: MAJI,
      matched: true,
      keyword: null,
      needsAd: null,
      enabled: true,
      earlier: null,
    });
    // From no ad, or another ad: the rule does not match, and says which ad it keeps to.
    expect((await tryIt(t, welcome.id, "Habari")).tried).toMatchObject({ matched: false, needsAd: MAJI });
    expect((await tryIt(t, welcome.id, "Habari", TANKI)).tried).toMatchObject({ matched: false, needsAd: MAJI });
    // "Any ad" with a keyword: from an ad it matches on the keyword, the ad's own rule before it answering first.
    expect((await tryIt(t, prices.id, "Bei gani?", TANKI)).tried).toMatchObject({
      matched: true,
      keyword: "bei",
      earlier: { id: tanki.id, name: "Tanki", position: 1 },
    });
    expect((await tryIt(t, prices.id, "Bei gani?")).tried).toMatchObject({ matched: false, needsAd: "any" });
    expect((await tryIt(t, prices.id, "Habari", MAJI)).tried).toMatchObject({ matched: false, needsAd: null });

    // Without JavaScript: the post is answered with the page, in words.
    const drawn = async (fromAd: string) => {
      const answer = await appFetch(
        formRequest(
          `/automations/${welcome.id}`,
          { intent: "try", sample: "Habari", fromAd },
          { cookie: t.cookie, headers: { accept: "text/html" } },
        ),
      );
      expect(answer.status).toBe(200);
      return (await answer.text()).replace(/<!-- -->/g, "");
    };
    expect(await drawn(MAJI)).toContain("This rule matches: it has no keywords, so it answers every message from its ad.");
    expect(await drawn("")).toContain(
      `This rule does not match: it answers only customers who came from the ad Maji safi kwa nyumba yako (${MAJI}).`,
    );
    const html = await drawn(TANKI);
    expect(html).toContain(`<option value="${TANKI}" selected="">`);
    expect(html).toContain("No ad");
  });
});
