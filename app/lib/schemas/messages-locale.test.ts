import { describe, expect, it } from "vitest";
import { inLocale } from "~/.server/infrastructure/http/display-zone";
import { MESSAGES, SigninSchema } from "./auth";
import { QuickReplySchema } from "./quick-replies";
import { ROLE_WORDS } from "./team-rules";

// Issue 43: the schemas are built once, when their modules load, but each says what is wrong in the
// language of the request that reports it (zod asks for the text when it finds the issue).
const messagesOf = (result: { success: boolean; error?: { issues: Array<{ message: string }> } }) =>
  result.error?.issues.map((i) => i.message) ?? [];

const emptySignIn = () => messagesOf(SigninSchema.safeParse({ email: "", password: "" }));
const shortSignIn = () => messagesOf(SigninSchema.safeParse({ email: "a b@c.d", password: "12345" }));
const longAnswer = () => messagesOf(QuickReplySchema.safeParse({ shortcut: "hours", body: "a".repeat(1001) }));

describe("a schema's texts in the request's language", () => {
  it("speaks Swahili inside a Swahili request", () => {
    inLocale("sw", () => {
      expect(emptySignIn()).toEqual(["Barua pepe inahitajika", "Nenosiri linahitajika"]);
      expect(shortSignIn()).toEqual(["Barua pepe si sahihi", "Nenosiri lazima liwe na angalau herufi 6"]);
      expect(longAnswer()).toEqual(["Jibu lililohifadhiwa lisizidi herufi 1,000."]);
      expect(MESSAGES.emailRequired).toBe("Barua pepe inahitajika");
      expect(ROLE_WORDS.viewer).toBe("Mtazamaji");
    });
  });

  it("speaks French inside a French request", () => {
    inLocale("fr", () => {
      expect(emptySignIn()).toEqual(["L'adresse e-mail est obligatoire", "Le mot de passe est obligatoire"]);
      expect(shortSignIn()).toEqual(["L'adresse e-mail n'est pas valide", "Le mot de passe doit contenir au moins 6 caractères"]);
      // The limit is grouped as the language groups numbers (~/lib/dates).
      expect(longAnswer()).toEqual([expect.stringMatching(/^Une réponse enregistrée comporte au plus 1\D?000 caractères\.$/)]);
      expect(MESSAGES.emailRequired).toBe("L'adresse e-mail est obligatoire");
      expect(ROLE_WORDS.viewer).toBe("Lecteur");
    });
  });

  it("speaks English outside any request, and again after one", () => {
    expect(emptySignIn()).toEqual(["Email is required", "Password is required"]);
    inLocale("sw", emptySignIn);
    expect(shortSignIn()).toEqual(["Email is invalid", "Password must be at least 6 characters"]);
    expect(longAnswer()).toEqual(["A saved answer has at most 1,000 characters."]);
    expect(MESSAGES.emailRequired).toBe("Email is required");
    expect(ROLE_WORDS.viewer).toBe("Viewer");
  });

  it("keeps each request's language while requests in other languages run at the same time", async () => {
    const later = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
    const [sw, fr] = await Promise.all([
      inLocale("sw", async () => {
        await later(5);
        return emptySignIn();
      }),
      inLocale("fr", async () => {
        await later(1);
        return emptySignIn();
      }),
    ]);
    expect(sw[0]).toBe("Barua pepe inahitajika");
    expect(fr[0]).toBe("L'adresse e-mail est obligatoire");
  });
});
