import { describe, expect, it } from "vitest";
import { pseudoLocalize, pseudoWord } from "./pseudo-locale";

describe("the pseudo-locale", () => {
  it("accents every word and makes it two-fifths longer", () => {
    expect(pseudoWord("Settings")).toBe("Šëttíñgšëíëí");
    expect(pseudoWord("Save").length).toBe(Math.ceil(4 * 1.4));
    expect(pseudoWord("Jumbe")).toMatch(/^Jümbë/);
  });

  it("changes the words between tags only: never a tag, an attribute, an entity, a script or a style", () => {
    const html =
      '<html lang="en"><head><style>.a{color:red}</style><script>var text = "Send";</script></head>' +
      '<body><a href="/billing" title="Billing">Top up &amp; pay</a> KES 1,200</body></html>';
    expect(pseudoLocalize(html)).toBe(
      '<html lang="en"><head><style>.a{color:red}</style><script>var text = "Send";</script></head>' +
        `<body><a href="/billing" title="Billing">${pseudoWord("Top")} ${pseudoWord("up")} &amp; ${pseudoWord("pay")}</a> ${pseudoWord("KES")} 1,200</body></html>`,
    );
  });
});
