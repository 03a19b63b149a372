import express, { Router, type NextFunction, type Request, type Response } from "express";
import { C2bInputError } from "./c2b";
import type { MpesaContext } from "./context";
import { MAGIC_AMOUNTS } from "./payouts";
import { MAGIC_PHONES, PromptError } from "./prompts";
import { ShortcodeInputError, type SandboxShortcode, type SandboxShortcodeInput } from "./shortcodes";
import { DELIVERIES, OUTCOMES, type C2bInput, type DeliveryPlan, type Outcome, type Prompt } from "./types";

class BadInput extends Error {}

type Body = Record<string, unknown>;

function bodyOf(req: Request): Body {
  const body = req.body as unknown;
  if (body === undefined || body === null) return {};
  if (typeof body !== "object" || Array.isArray(body)) throw new BadInput("The body must be a JSON object.");
  return body as Body;
}

function wholeNumber(body: Body, key: string): number | undefined {
  const value = body[key];
  if (value === undefined || value === null || value === "") return undefined;
  const n = typeof value === "string" ? Number(value) : value;
  if (typeof n !== "number" || !Number.isInteger(n)) throw new BadInput(`${key} must be a whole number.`);
  return n;
}

/** `{ delivery?, duplicates?, delayMs? }` from a control body, unchecked beyond types (planFrom checks). */
export function planInput(body: Body): Partial<DeliveryPlan> {
  const delivery = body.delivery;
  if (delivery !== undefined && delivery !== null && !(DELIVERIES as readonly unknown[]).includes(delivery))
    throw new BadInput(`delivery must be one of ${DELIVERIES.join(", ")}.`);
  const plan: Partial<DeliveryPlan> = {};
  if (typeof delivery === "string") plan.delivery = delivery as DeliveryPlan["delivery"];
  const duplicates = wholeNumber(body, "duplicates");
  if (duplicates !== undefined) plan.duplicates = duplicates;
  const delayMs = wholeNumber(body, "delayMs");
  if (delayMs !== undefined) plan.delayMs = delayMs;
  return plan;
}

export function outcomeOf(value: unknown): Outcome {
  if (!(OUTCOMES as readonly unknown[]).includes(value)) throw new BadInput(`outcome must be one of ${OUTCOMES.join(", ")}.`);
  return value as Outcome;
}

/** A prompt as the control API lists it. */
export const promptView = (p: Prompt) => ({
  CheckoutRequestID: p.CheckoutRequestID,
  MerchantRequestID: p.MerchantRequestID,
  phone: p.phone,
  amount: p.amount,
  accountReference: p.accountReference,
  createdAt: p.createdAt,
});

/** A shortcode as the control API shows it: no secret, no passkey. */
const shortcodeView = (s: SandboxShortcode) => ({
  label: s.label,
  kind: s.kind,
  shortcode: s.shortcode,
  tillNumber: s.tillNumber,
  consumerKey: s.consumerKey,
});

/** A shortcode from a control body (ShortcodeBook checks the values). */
function shortcodeInput(body: Body): SandboxShortcodeInput {
  const str = (key: string) => (typeof body[key] === "string" || typeof body[key] === "number" ? String(body[key]) : "");
  return {
    label: str("label"),
    kind: (str("kind") || "paybill") as SandboxShortcodeInput["kind"],
    shortcode: str("shortcode"),
    tillNumber: str("tillNumber"),
    consumerKey: str("consumerKey"),
    consumerSecret: str("consumerSecret"),
    passkey: str("passkey"),
  };
}

/** C2B input from a control body (the types; C2bDesk checks the values). */
export function c2bInput(body: Body): C2bInput {
  const str = (key: string) => (body[key] === undefined || body[key] === null ? undefined : String(body[key] as string | number));
  const amount = body.amount;
  if (typeof amount !== "number" && typeof amount !== "string") throw new BadInput("amount is required (whole shillings).");
  return {
    msisdn: str("msisdn") ?? "",
    amount: Number(amount),
    billRefNumber: str("billRefNumber") ?? "",
    transId: str("transId"),
    shortCode: str("shortCode"),
    firstName: str("firstName"),
    commandId: str("commandId") as C2bInput["commandId"],
    msisdnFormat: str("msisdnFormat") as C2bInput["msisdnFormat"],
    confirmations: wholeNumber(body, "confirmations"),
  };
}

/**
 * JSON control API for tests: pending prompts and their answers, callbacks sent, C2B payments, B2C payouts,
 * the default delivery chaos, reset. Bad input answers 400 `{message}`; unknown prompts 404; an
 * answered prompt 409.
 */
export function controlRouter(ctx: MpesaContext): Router {
  const router = Router({ caseSensitive: true });
  const { sandbox } = ctx;
  router.use(express.json({ limit: "64kb" }));
  router.use((_req, res, next) => {
    res.setHeader("Cache-Control", "no-store");
    next();
  });

  const route = (handler: (req: Request, res: Response) => unknown) => async (req: Request, res: Response, next: NextFunction) => {
    try {
      const result = await handler(req, res);
      if (!res.headersSent) res.json(result ?? { ok: true });
    } catch (error) {
      if (error instanceof PromptError)
        return void res.status(error.kind === "unknown" ? 404 : error.kind === "answered" ? 409 : 400).json({ message: error.message });
      if (error instanceof ShortcodeInputError)
        return void res.status(error.message.includes("already") ? 409 : 400).json({ message: error.message });
      if (error instanceof BadInput || error instanceof C2bInputError) return void res.status(400).json({ message: error.message });
      next(error);
    }
  };

  router.get(
    "/prompts",
    route(() => sandbox.prompts().map(promptView)),
  );
  router.get(
    "/prompts/all",
    route(() => sandbox.allPrompts()),
  );
  router.post(
    "/prompts/:id",
    route(async (req, res) => {
      const body = bodyOf(req);
      const outcome = outcomeOf(body.outcome);
      const plan = planInput(body);
      const id = String(req.params.id);
      const wasPending = sandbox.prompt(id)?.state === "pending";
      const answering = sandbox.answer(id, outcome, plan);
      const prompt = sandbox.prompt(id);
      // answer() marks the prompt done before it waits for the callback; a refusal leaves it as it was.
      if (body.wait !== false || !wasPending || prompt?.state !== "done") return answering;
      answering.catch(() => {});
      res
        .status(202)
        .json({ CheckoutRequestID: id, outcome, ResultCode: prompt.resultCode, ResultDesc: prompt.resultDesc, plan: prompt.plan });
    }),
  );
  router.get(
    "/callbacks",
    route(() => sandbox.callbacks()),
  );
  router.get(
    "/registrations",
    route(() => sandbox.registrations()),
  );
  router.post(
    "/c2b",
    route((req) => sandbox.simulateC2b(c2bInput(bodyOf(req)))),
  );
  router.get(
    "/shortcodes",
    route(() => sandbox.shortcodes().map(shortcodeView)),
  );
  router.post(
    "/shortcodes",
    route((req, res) => void res.status(201).json(shortcodeView(sandbox.addShortcode(shortcodeInput(bodyOf(req)))))),
  );
  router.post(
    "/chaos",
    route((req) => sandbox.setDefaultDelivery(planInput(bodyOf(req)))),
  );
  router.get(
    "/magic",
    route(() => MAGIC_PHONES),
  );
  router.get(
    "/payouts",
    route(() => sandbox.payouts()),
  );
  router.get(
    "/payouts/magic",
    route(() => MAGIC_AMOUNTS),
  );
  router.get(
    "/certificate",
    route((_req, res) => void res.type("application/x-pem-file").send(sandbox.credentialCertificate)),
  );
  router.post(
    "/flush",
    route(() => sandbox.flush()),
  );
  router.post(
    "/reset",
    route(() => sandbox.reset()),
  );
  router.use((_req: Request, res: Response) => void res.status(404).json({ message: "No such control endpoint." }));
  router.use((error: unknown, _req: Request, res: Response, next: NextFunction) => {
    const type = (error as { type?: string } | null)?.type;
    if (type === "entity.too.large") return void res.status(413).json({ message: "The body is over 64 KB." });
    if (type === "entity.parse.failed") return void res.status(400).json({ message: "The body is not JSON." });
    next(error);
  });
  return router;
}
