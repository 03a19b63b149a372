import type { TemplateInput } from "~/lib/templates";

/** The messages at a field (its name as posted, `buttons[0].text`), or none. */
export type FieldErrors = (name: string) => string[] | undefined;

/** What every part of the template form is given: the values as the server read them, and the messages. */
export interface TemplatePartProps {
  /** The values the server answered with (the defaults of the inputs, and what the form's shape follows). */
  values: TemplateInput;
  errors: FieldErrors;
}
