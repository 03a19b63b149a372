import type { TemplateInput } from "~/lib/templates";

/** The messages at a field (its name as posted, `buttons[0].text`), or none. */
export type FieldErrors = (name: string) => string[] | undefined;

/** What every part of the template form is given: the server's values, what is typed now, and the messages. */
export interface TemplatePartProps {
  /** The values the server answered with (the defaults of the inputs). */
  values: TemplateInput;
  /** The values as typed now (with JavaScript; the server's values without). */
  live: TemplateInput;
  errors: FieldErrors;
}
