import { describe, expect, it } from "vitest";
import { inputFromMeta, templateProblems, toMetaComponents } from "~/lib/templates";
import { DEMO_TEMPLATES } from "./seed";

// The demo business's templates pass the checks the template editor makes before anything goes to
// Meta, as written and as read back from what the seed stores (Meta's shape, which the editor opens).
describe("the demo templates", () => {
  it.each(DEMO_TEMPLATES.map((t) => [t.name, t] as const))("%s passes the editor's checks", (_name, input) => {
    expect(templateProblems(input)).toEqual({});
    const stored = inputFromMeta({
      name: input.name,
      category: input.category,
      language: input.language,
      components: toMetaComponents(input),
    });
    expect(templateProblems(stored)).toEqual({});
  });
});
