import { afterEach, describe, expect, it } from "vitest";
import { createGraphClient } from "../../app/.server/infrastructure/clients/whatsapp-graph/graph-client";
import description from "../../tests/fixtures/meta-openapi/responses-v23.0.json";
import { schemaErrors, type Schema } from "@jumbe/sandbox/meta/openapi-check";
import { APP_ID, APP_SECRET, startSending, type SendingHarness } from "@jumbe/sandbox/meta/test-support";

/**
 * The sandbox's answers to the Graph calls Jumbe makes, checked against the 200 response schemas of
 * Meta's OpenAPI description (v23.0, vendored under tests/fixtures/meta-openapi with its source), and
 * read back through Jumbe's own Graph client.
 *
 * Not checked, for want of a sound schema:
 * - POST oauth/access_token, GET debug_token and the Resumable Upload API (/{app-id}/uploads,
 *   /upload:{id}): the description has no operation for them.
 * - `required` under a `fields` selection: Graph answers only the fields asked for, so a required
 *   property a caller does not ask for is absent by design. Jumbe's own field lists include every
 *   required property (checked below); the default answers are checked without `fields`.
 * - `nullable` (WhatsAppBusinessAccountPhoneNumber.username) is OpenAPI 3.0 in a 3.1 document, where
 *   it means nothing; it is read as the authors meant it (null allowed).
 * - The enum of a listed number's `status` (WhatsAppPhoneNumberStatus: PENDING, LINKED, UNLINKED,
 *   DELETED, MIGRATED, BANNED, RESTRICTED) contradicts the same document, whose other phone number
 *   status lists (WhatsAppBusinessAccountToNumberStatus and the assigned accounts' numbers) have
 *   CONNECTED and DISCONNECTED, and Meta's own examples, where a registered number is CONNECTED. Its
 *   type is checked, its enum is not (UNSOUND below).
 */
const operations = description.operations as Record<string, Schema>;
const UNSOUND: Record<string, Schema> = { WhatsAppPhoneNumberStatus: { type: "string" } };
const components = { ...(description.schemas as Record<string, Schema>), ...UNSOUND };

function conforms(operation: string, json: unknown) {
  const schema = operations[operation];
  if (!schema) throw new Error(`no schema for ${operation}`);
  expect(schemaErrors(json, schema, components), `${operation}: ${JSON.stringify(json)}`).toEqual([]);
}

let h: SendingHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const CUSTOMER = "254712345678";

/** Jumbe's Graph client on the sandbox, keeping every answer's JSON by operation as it goes. */
async function recordedClient() {
  h = await startSending();
  const answers: { method: string; path: string; status: number; json: unknown }[] = [];
  const recording = (async (input: URL | string, init?: RequestInit) => {
    const response = await fetch(input, init);
    const url = new URL(String(input));
    const text = await response.clone().text();
    answers.push({ method: init?.method ?? "GET", path: url.pathname, status: response.status, json: text ? JSON.parse(text) : undefined });
    return response;
  }) as typeof fetch;
  const client = createGraphClient({
    baseUrl: `${h.base}/graph`,
    version: "v25.0",
    appId: APP_ID,
    appSecret: APP_SECRET,
    timeoutMs: 5000,
    backoffMs: 1,
    fetch: recording,
  });
  /** Runs a client call; every answer it got must be a 200 that conforms to `operation`'s schema. */
  async function checked<T>(operation: string, run: () => Promise<T>): Promise<T> {
    const from = answers.length;
    const result = await run();
    const got = answers.slice(from);
    expect(got.length, operation).toBeGreaterThan(0);
    for (const answer of got) {
      expect(answer.status, `${operation} ${answer.path}`).toBe(200);
      conforms(operation, answer.json);
    }
    return result;
  }
  return { harness: h, client, checked };
}

describe("the Meta sandbox's answers follow Meta's OpenAPI description", () => {
  it("WABA, subscriptions, phone numbers and registration, read by Jumbe's client", async () => {
    const { harness, client, checked } = await recordedClient();
    const { wabaId, phoneNumberId } = harness.business;
    const token = harness.token;

    const waba = await checked("GET /{WABA-ID}", () => client.getWaba(wabaId, token));
    expect(waba.id).toBe(wabaId);
    await checked("POST /{WABA-ID}/subscribed_apps", () => client.subscribeApp(wabaId, token));
    const numbers = await checked("GET /{WABA-ID}/phone_numbers", () => client.listPhoneNumbers(wabaId, token));
    expect(numbers).toEqual([expect.objectContaining({ id: phoneNumberId, status: "CONNECTED" })]);
    const number = await checked("GET /{Phone-Number-ID}", () => client.getPhoneNumber(phoneNumberId, token));
    expect(number).toMatchObject({ id: phoneNumberId, status: "CONNECTED" });
    await checked("DELETE /{WABA-ID}/subscribed_apps", () => client.unsubscribeApp(wabaId, token));

    const fresh = harness.sandbox.createTestBusiness({ businessName: "Duka la Baraka" });
    const freshToken = await harness.tokenFor(fresh.businessId, [fresh.wabaId]);
    await checked("POST /{Phone-Number-ID}/register", () => client.registerPhoneNumber(fresh.phoneNumberId, freshToken, "581063"));
  });

  it("the default answers, without `fields`, carry what the description requires", async () => {
    const { harness } = await recordedClient();
    const { wabaId, phoneNumberId } = harness.business;
    const token = harness.token;
    const list = await harness.graph(`${wabaId}/phone_numbers`, { token });
    expect(list.status).toBe(200);
    conforms("GET /{WABA-ID}/phone_numbers", list.json);
    expect(list.json.data[0]).toMatchObject({ id: phoneNumberId, status: "CONNECTED" });
    const node = await harness.graph(phoneNumberId, { token });
    conforms("GET /{Phone-Number-ID}", node.json);
    const waba = await harness.graph(wabaId, { token });
    conforms("GET /{WABA-ID}", waba.json);
  });

  it("templates: create, list, read, edit and delete", async () => {
    const { harness, client, checked } = await recordedClient();
    const { wabaId } = harness.business;
    const token = harness.token;
    const created = await checked("POST /{WABA-ID}/message_templates", () =>
      client.createTemplate(wabaId, token, {
        name: "oda_tayari",
        language: "sw",
        category: "UTILITY",
        components: [{ type: "BODY", text: "Habari {{1}}, oda yako iko tayari.", example: { body_text: [["Amina"]] } }],
      }),
    );
    expect(created).toMatchObject({ id: expect.stringMatching(/^\d+$/), status: "PENDING" });
    const approved = harness.sandbox.createTemplateAtMeta(wabaId, { name: "salamu", language: "sw", category: "MARKETING" });
    const listed = await checked("GET /{WABA-ID}/message_templates", () => client.listTemplates(wabaId, token));
    expect(listed.map((t) => t.name).sort()).toEqual(["oda_tayari", "salamu"]);
    const read = await checked("GET /{TEMPLATE_ID}", () => client.getTemplate(approved.id, token));
    expect(read).toMatchObject({ id: approved.id, name: "salamu", status: "APPROVED" });
    await checked("POST /{TEMPLATE_ID}", () =>
      client.editTemplate(approved.id, token, { components: [{ type: "BODY", text: "Karibu tena!" }] }),
    );
    await checked("DELETE /{WABA-ID}/message_templates", () => client.deleteTemplate(wabaId, token, "oda_tayari", created.id));
  });

  it("messages and media: send, mark read, upload, read the node (file_size a string) and delete", async () => {
    const { harness, client, checked } = await recordedClient();
    const { phoneNumberId } = harness.business;
    const token = harness.token;
    const { wamid } = await harness.customerWrites(CUSTOMER);
    const sent = await checked("POST /{Phone-Number-ID}/messages", () =>
      client.sendMessage(phoneNumberId, token, { to: CUSTOMER, type: "text", text: { body: "Karibu" } }),
    );
    expect(sent.wamid).toMatch(/^wamid\./);
    await checked("POST /{Phone-Number-ID}/messages", () => client.markRead(phoneNumberId, token, wamid));

    const bytes = new Uint8Array(Buffer.concat([Buffer.from("%PDF-1.4\n"), Buffer.alloc(2000, 65)]));
    const id = await checked("POST /{Phone-Number-ID}/media", () =>
      client.uploadMedia(phoneNumberId, token, { bytes, contentType: "application/pdf", fileName: "risiti.pdf" }),
    );
    const media = await checked("GET /{Media-ID}", () => client.getMedia(id, token, phoneNumberId));
    expect(media.fileSize).toBe(bytes.length);
    await checked("DELETE /{Media-ID}", () => client.deleteMedia(id, token, phoneNumberId));
  });
});

describe("the schema checker", () => {
  const verbatim = description.schemas as Record<string, Schema>;

  it("finds a missing required status and a number where the description has a string", () => {
    const phoneNumbers = { data: [{ id: "1", display_phone_number: "+254 711 000 001", verified_name: "Jumbe Demo" }] };
    expect(schemaErrors(phoneNumbers, operations["GET /{WABA-ID}/phone_numbers"]!, components)).toEqual([
      '$.data[0]: lacks the required "status"',
    ]);
    const media = { messaging_product: "whatsapp", url: "https://x", mime_type: "image/jpeg", sha256: "ab", file_size: 303833, id: "2" };
    expect(schemaErrors(media, operations["GET /{Media-ID}"]!, components)).toEqual(["$.file_size: number where the schema has string"]);
    expect(schemaErrors({ ...media, file_size: "303833" }, operations["GET /{Media-ID}"]!, components)).toEqual([]);
    const listed = { data: [{ id: "1", display_phone_number: "+1", status: "CONNECTED" }] };
    expect(schemaErrors(listed, operations["GET /{WABA-ID}/phone_numbers"]!, verbatim)).toEqual([
      expect.stringMatching(/^\$\.data\[0\]\.status: "CONNECTED" is not one of "PENDING", /),
    ]);
    expect(schemaErrors({ data: [{ ...listed.data[0], status: 1 }] }, operations["GET /{WABA-ID}/phone_numbers"]!, components)).toEqual([
      "$.data[0].status: number where the schema has string",
    ]);
    expect(() => schemaErrors({}, { allOf: [] }, components)).toThrow(/does not know/);
  });

  it("judges anyOf, oneOf (exactly one branch) and additionalProperties, as OpenAI's description uses them", () => {
    const nullableText = { anyOf: [{ type: "string" }, { type: "null" }] };
    expect(schemaErrors(null, nullableText, {})).toEqual([]);
    expect(schemaErrors(3, nullableText, {})).toEqual([
      "$: matches none of its anyOf ($: number where the schema has string; $: number where the schema has null)",
    ]);
    const call = { oneOf: [{ required: ["function"] }, { required: ["custom"] }], discriminator: { propertyName: "type" } };
    expect(schemaErrors({ function: {} }, call, {})).toEqual([]);
    expect(schemaErrors({ function: {}, custom: {} }, call, {})).toEqual(["$: matches 2 branches of its oneOf, not one"]);
    const metadata = { type: "object", properties: { id: { type: "string" } }, additionalProperties: { type: "string" } };
    expect(schemaErrors({ id: "a", note: "b" }, metadata, {})).toEqual([]);
    expect(schemaErrors({ id: "a", note: 1 }, metadata, {})).toEqual(["$.note: number where the schema has string"]);
    expect(schemaErrors({ constructor: 1 }, { type: "object", additionalProperties: false }, {})).toEqual([
      '$: has "constructor", which the schema does not allow',
    ]);
  });
});
