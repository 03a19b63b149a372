import { parseWithZod, type Submission, type SubmissionResult } from "@conform-to/zod/v4";
import * as z from "zod/mini";
import type { Permission, RoutePermission } from "~/lib/permissions";
import { Refusal } from "../refusal";
import { formFailure, readForm } from "./forms";
import { isSpam } from "./honeypot";
import { postedText, readPosted } from "./posted-fields";

/*
 * The one form protocol (issue 75, decision 119): a page's action declares its intents, each with
 * the permission it needs, the zod schema its fields are read with (through Conform) and the
 * handler that receives that schema's parsed value. The helper reads the posted form once (bounded
 * as readForm reads it), picks the intent named by the posted `intent` field, checks the intent's
 * permission with the guard the signed-in layouts use, parses, and answers a post that does not fit
 * with Conform's reply as the pages render it. Nothing else in an action reads the form or checks
 * a permission by hand.
 *
 * This layer knows nothing of sessions: the guard is given by the auth domain, which binds it
 * (app/.server/domains/auth/form-actions.ts); routes import the bound helpers from there.
 */

/** What a form's post needs: a permission, several (all of them), or "signed-in" for any member. */
export type Needed = RoutePermission | readonly Permission[];

/** The guard that answers a visitor or a role without `needed` as pages do (a redirect), or gives the signed-in user. */
export type IntentGuard<User> = (args: { request: Request; context: unknown }, needed: readonly Permission[]) => Promise<User>;

/** Whether the signed-in user's role holds every permission `needed` names (for a page that answers a refused role itself). */
export type IntentHolds<User> = (user: User, needed: readonly Permission[]) => boolean;

/** Conform's submission of a schema, as a handler and a failure answer get it. */
export type SubmissionOf<Schema extends z.ZodMiniType> = Submission<z.input<Schema>, string[], z.output<Schema>>;

/** What a handler gets: its schema's parsed value, the submission (for Conform replies), the form (for files) and the user. */
export interface IntentInput<Schema extends z.ZodMiniType, User> {
  value: z.output<Schema>;
  submission: SubmissionOf<Schema>;
  form: FormData;
  user: User;
  /** The intent posted ("" for a page's single form, formAction). */
  intent: string;
}

/** Fields never sent back in Conform's reply (a key, a password). */
export interface ReplyOptions {
  hideFields?: string[];
}

/** An intent of a page: built by `intent()`, it carries its schema's value type to its handler. */
export interface IntentDefinition<Schema extends z.ZodMiniType, User, Result, Invalid> {
  schema: Schema;
  permission?: Needed;
  reply?: ReplyOptions;
  prepare?: PrepareForm;
  handle: (input: IntentInput<Schema, User>) => Result | Promise<Result>;
  invalid?: (submission: SubmissionOf<Schema>, intent: string, user: User) => Invalid | Promise<Invalid>;
}

interface IntentOptions<Schema extends z.ZodMiniType, Invalid, User = unknown> {
  /** The permission this intent needs, when not the route's (a stricter or another one). */
  permission?: Needed;
  /** What Conform's failure reply leaves out. */
  reply?: ReplyOptions;
  /** The form as its fields are read (the six boxes of a code joined into one field); the handler gets it too. See PrepareForm. */
  prepare?: PrepareForm;
  /** The answer to a post that does not fit the schema, when not the form again with Conform's errors. */
  invalid?: (submission: SubmissionOf<Schema>, intent: string, user: User) => Invalid | Promise<Invalid>;
}

/** The default answer to a post that does not fit: Conform's reply (status 400) and the page's intent. */
function failed<Schema extends z.ZodMiniType>(submission: SubmissionOf<Schema>, reply: ReplyOptions | undefined, intent: string | null) {
  const result: SubmissionResult<string[]> = submission.reply(reply?.hideFields ? { hideFields: reply.hideFields } : {});
  return intent === null ? formFailure(result, 400) : formFailure(result, 400, undefined, { intent });
}

type DefaultFailure = ReturnType<typeof failed>;

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- any intent's schema, user and results: each entry is typed by intent().
type AnyIntent = IntentDefinition<any, any, any, any>;

type ResultOf<Definition> =
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- any schema and user: only the results are read.
  Definition extends IntentDefinition<any, any, infer Result, infer Invalid>
    ? Awaited<Result> | ([Invalid] extends [never] ? DefaultFailure : Awaited<Invalid>)
    : never;

/** The post as `schema` reads it, or null when it does not fit. */
export type ReadPost = <Schema extends z.ZodMiniType>(schema: Schema) => z.output<Schema> | null;

/**
 * What the form reads before its fields are parsed (the six boxes of a code joined into one field,
 * an uploaded list joined to the pasted one). It may refuse one field by throwing a `Refusal` that
 * names it (a file too large): the post is then answered as one that does not fit, with that
 * refusal's words at its field and no other error, and the handler does not run.
 */
export type PrepareForm = (form: FormData) => FormData | Promise<FormData>;

export interface IntentActionConfig<Intents extends Record<string, AnyIntent>, Refused, Unknown> {
  /** The permission every intent needs unless it names its own. */
  permission: Needed;
  intents: Intents;
  /** The answer to a Refusal a handler throws (anything else is thrown on); without it the refusal is thrown on. */
  refused?: (refusal: Refusal, intent: string) => Refused | Promise<Refused>;
  /**
   * The answer to an intent the page does not have (a hand-made post): thrown or returned. `read`
   * reads the post with a schema, for a page whose answer says where it came from. Or the name of
   * the intent such a post runs (a page whose main button was always the default), or an intent of
   * its own (built by `intent()`) that such a post runs and no button names (a page that answers it
   * with Conform's reply, as its other failures).
   */
  unknown:
    | ((intent: string, read: ReadPost, user: IntentUser<Intents>) => Unknown | Promise<Unknown>)
    | (keyof Intents & string)
    | IntentDefinition<z.ZodMiniType, IntentUser<Intents>, Unknown, Unknown>;
  /**
   * A page that answers a role without an intent's permission itself (the inbox's 403 with its
   * sentence, shown at the form) rather than with the guard's refusal page: the guard is then asked
   * for `permission` only, and a role lacking the permission the intents share gets this answer
   * before the form is read, one lacking the posted intent's own after. Thrown or returned.
   */
  forbidden?: (user: IntentUser<Intents>) => Refused | Promise<Refused>;
  /**
   * A page that reads its post itself (the inbox's composer streams its attachment to storage as it
   * arrives, under its own limits): the form its fields are parsed from, or undefined to read it as
   * every page does. A `Refusal` it throws is the page's `refused` answer (intent "").
   */
  read?: (request: Request, user: IntentUser<Intents>) => Promise<FormData | undefined>;
}

/** The user the intents' handlers get (what the guard gave). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- any schema and results: only the user is read.
type IntentUser<Intents> = Intents[keyof Intents] extends IntentDefinition<any, infer User, any, any> ? User : never;

export interface FormActionConfig<Schema extends z.ZodMiniType, User, Result, Invalid, Refused, Spam = never> extends IntentOptions<
  Schema,
  Invalid,
  User
> {
  permission: Needed;
  schema: Schema;
  handle: (input: IntentInput<Schema, User>) => Result | Promise<Result>;
  refused?: (refusal: Refusal) => Refused | Promise<Refused>;
  /**
   * A public form's honeypot (remix-utils): when a bot filled it, this answer, before the fields'
   * verdict (a bot is told nothing about its fields).
   */
  spam?: (submission: SubmissionOf<Schema>) => Spam | Promise<Spam>;
}

const IntentField = z.object({ intent: postedText });

/**
 * Conform's submission of a form that `prepare` refused at one field: the form as it was, that
 * field's refusal its only error (the other fields not judged: the post is answered for that).
 */
function refusedAt(form: FormData, field: string, message: string) {
  const refuse = z.unknown().check(z.refine(() => false, { error: message }));
  return parseWithZod(form, { schema: z.looseObject({ [field]: refuse }) });
}

/** The permissions a need names ("signed-in" names none). */
function permissionsOf(needed: Needed): readonly Permission[] {
  if (needed === "signed-in") return [];
  return typeof needed === "string" ? [needed as Permission] : (needed as readonly Permission[]);
}

async function answerRefusal<Refused>(error: unknown, refused: ((refusal: Refusal) => Refused | Promise<Refused>) | undefined) {
  if (!(error instanceof Refusal) || !refused) throw error;
  return refused(error);
}

/**
 * The helpers bound to a guard: `intent()` declares one intent of a page, `intentAction()` answers a
 * post to a page with several forms told apart by their `intent` button, `formAction()` a page
 * with one form and no intent field.
 */
export function intentActions<User>(guard: IntentGuard<User>, holds?: IntentHolds<User>) {
  /** One intent: its schema, the handler of its parsed value, and (optionally) its own permission and failure answer. */
  function intent<Schema extends z.ZodMiniType, Result, Invalid = never>(
    schema: Schema,
    handle: (input: IntentInput<Schema, User>) => Result | Promise<Result>,
    options: IntentOptions<Schema, Invalid, User> = {},
  ): IntentDefinition<Schema, User, Result, Invalid> {
    return { schema, handle, ...options };
  }

  async function run<Schema extends z.ZodMiniType, Result, Invalid>(
    definition: IntentDefinition<Schema, User, Result, Invalid>,
    form: FormData,
    user: User,
    intent: string | null,
  ) {
    let submission: SubmissionOf<Schema>;
    try {
      if (definition.prepare) form = await definition.prepare(form);
      submission = parseWithZod(form, { schema: definition.schema }) as SubmissionOf<Schema>;
    } catch (error) {
      if (!(error instanceof Refusal) || !error.field) throw error;
      submission = refusedAt(form, error.field, error.message) as SubmissionOf<Schema>;
    }
    if (submission.status !== "success") {
      if (definition.invalid) return definition.invalid(submission, intent ?? "", user);
      return failed(submission, definition.reply, intent);
    }
    return definition.handle({ value: submission.value as z.output<Schema>, submission, form, user, intent: intent ?? "" });
  }

  /**
   * A post to a page with several intents. The permission every intent shares is checked before
   * the form is read (a role without it is sent to the refusal page whatever it posted, as the
   * guard always did); the chosen intent's own, after.
   */
  async function intentAction<
    Args extends { request: Request; context: unknown },
    const Intents extends Record<string, AnyIntent>,
    Refused = never,
    Unknown = never,
  >(args: Args, config: IntentActionConfig<Intents, Refused, Unknown>): Promise<ResultOf<Intents[keyof Intents]> | Refused | Unknown> {
    const needs = Object.values(config.intents).map((definition) => permissionsOf(definition.permission ?? config.permission));
    const shared = needs.length ? needs.reduce((all, next) => all.filter((permission) => next.includes(permission))) : [];
    if (config.forbidden && !holds) throw new Error("An action that answers a refused role itself needs the helper bound with `holds`.");
    // A page answering a refused role itself: the guard for the page's permission, the intents' told by `holds`.
    const ownAnswer = config.forbidden && holds ? { forbidden: config.forbidden, holds } : null;
    let user = await guard(args, ownAnswer ? permissionsOf(config.permission) : shared);
    if (ownAnswer && !ownAnswer.holds(user, shared)) return ownAnswer.forbidden(user as IntentUser<Intents>);
    let form: FormData;
    try {
      form = (config.read && (await config.read(args.request, user as IntentUser<Intents>))) || (await readForm(args.request));
    } catch (error) {
      return answerRefusal(error, config.refused && ((refusal: Refusal) => config.refused!(refusal, "")));
    }
    const { intent } = readPosted(form, IntentField)!;
    const named = Object.hasOwn(config.intents, intent) ? config.intents[intent] : undefined;
    const { unknown } = config;
    if (!named && typeof unknown === "function") return unknown(intent, (schema) => readPosted(form, schema), user as IntentUser<Intents>);
    const definition = (named ?? (typeof unknown === "string" ? config.intents[unknown] : unknown))! as AnyIntent;
    const own = permissionsOf(definition.permission ?? config.permission);
    if (own.some((permission) => !shared.includes(permission))) {
      if (ownAnswer) {
        if (!ownAnswer.holds(user, own)) return ownAnswer.forbidden(user as IntentUser<Intents>);
      } else user = await guard(args, own);
    }
    try {
      return (await run(definition, form, user, intent)) as ResultOf<Intents[keyof Intents]>;
    } catch (error) {
      return answerRefusal(error, config.refused && ((refusal: Refusal) => config.refused!(refusal, intent)));
    }
  }

  /** A post to a page with one form (no intent field): its permission, its schema, its handler. */
  async function formAction<
    Args extends { request: Request; context: unknown },
    Schema extends z.ZodMiniType,
    Result,
    Invalid = never,
    Refused = never,
    Spam = never,
  >(
    args: Args,
    config: FormActionConfig<Schema, User, Result, Invalid, Refused, Spam>,
  ): Promise<Awaited<Result> | ([Invalid] extends [never] ? DefaultFailure : Awaited<Invalid>) | Refused | Awaited<Spam>> {
    const user = await guard(args, permissionsOf(config.permission));
    const form = await readForm(args.request);
    if (config.spam && (await isSpam(form)))
      return (await config.spam(parseWithZod(form, { schema: config.schema }) as SubmissionOf<Schema>)) as Awaited<Spam>;
    try {
      return (await run(config, form, user, null)) as Awaited<Result> | ([Invalid] extends [never] ? DefaultFailure : Awaited<Invalid>);
    } catch (error) {
      return answerRefusal(error, config.refused);
    }
  }

  return { intent, intentAction, formAction };
}

/*
 * Pages a visitor posts without being signed in (sign-in, sign-up, the codes, an invitation): the
 * same protocol with no guard and no permission. Their limits stay where they were: the rate limits
 * in the auth domain, the CSRF check in the server's middleware, the honeypot as `spam`.
 */
const visitor = intentActions<null>(async () => null);

/** One intent of a public page. */
export const publicIntent = visitor.intent;

/** A visitor's post to a page with several intents (no permission: nobody is signed in). */
export function publicIntentAction<
  Args extends { request: Request; context: unknown },
  const Intents extends Record<string, AnyIntent>,
  Refused = never,
  Unknown = never,
>(args: Args, config: Omit<IntentActionConfig<Intents, Refused, Unknown>, "permission">) {
  return visitor.intentAction<Args, Intents, Refused, Unknown>(args, { ...config, permission: "signed-in" });
}

/** A visitor's post to a page with one form. */
export function publicFormAction<
  Args extends { request: Request; context: unknown },
  Schema extends z.ZodMiniType,
  Result,
  Invalid = never,
  Refused = never,
  Spam = never,
>(args: Args, config: Omit<FormActionConfig<Schema, null, Result, Invalid, Refused, Spam>, "permission">) {
  return visitor.formAction<Args, Schema, Result, Invalid, Refused, Spam>(args, { ...config, permission: "signed-in" });
}
