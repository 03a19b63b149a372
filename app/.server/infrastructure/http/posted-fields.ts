import { parseWithZod } from "@conform-to/zod/v4";
import * as z from "zod/mini";

/*
 * Buttons-only forms (an intent, an id, a confirmation) need no Conform in the browser, but their
 * post is still read through a schema, never field by field by hand (issue 41, item 4).
 */

/** The post as `schema` reads it, or null when it does not fit (the caller says why, with its own status). */
export function readPosted<Schema extends z.ZodMiniType>(form: FormData, schema: Schema): z.output<Schema> | null {
  const submission = parseWithZod(form, { schema });
  return submission.status === "success" ? (submission.value as z.output<Schema>) : null;
}

/** A link's query as `schema` reads it (Conform's coercion, as a form's fields), or null when it does not fit. */
export function readQuery<Schema extends z.ZodMiniType>(params: URLSearchParams, schema: Schema): z.output<Schema> | null {
  const submission = parseWithZod(params, { schema });
  return submission.status === "success" ? (submission.value as z.output<Schema>) : null;
}

/** One text: what was posted, or "" when it is missing, empty or sent more than once (a hand-made post). */
export const postedText = z.catch(z.string(), "");

/** Every value of a repeated field (ticked boxes), or none when they are not all texts. */
export const postedList = z.catch(z.array(z.string()), []);

/** The named fields' texts ("" when missing): each page then decides what a missing one means. */
export function postedTexts<const Name extends string>(form: FormData, names: readonly Name[]): Record<Name, string> {
  const schema = z.object(Object.fromEntries(names.map((name) => [name, postedText])) as Record<Name, typeof postedText>);
  return readPosted(form, schema) as Record<Name, string>;
}

/*
 * As `FormData.get` and `getAll` read a field, for pages that always read it so: Conform leaves a
 * field read by a bare transform as it was posted ("" stays "", a repeated one is the list).
 */
const asPosted = (value: unknown): unknown[] => (value === undefined ? [] : Array.isArray(value) ? value : [value]);

/** The field's first value if it is a text (at most `max` characters), else "". */
export const postedFirst = (max: number) =>
  z.transform((value: unknown) => {
    const first = asPosted(value)[0];
    return typeof first === "string" ? first.slice(0, max) : "";
  });

/** The field's first `most` values, each its text ("" for a file). */
export const postedAll = (most: number) =>
  z.transform((value: unknown) =>
    asPosted(value)
      .slice(0, most)
      .map((one) => (typeof one === "string" ? one : "")),
  );

/** The field's first `most` values (ticked boxes) one a line, as a form's values keep a list. */
export const postedLines = (most: number) =>
  z.pipe(
    postedAll(most),
    z.transform((values: string[]) => values.join("\n")),
  );
