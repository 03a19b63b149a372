import { afterEach, describe, expect, it } from "vitest";
import type { MetaSandboxOptions } from "@jumbe/sandbox/meta/index";
import { APP_ID, APP_SECRET, startSending, type SendingHarness } from "@jumbe/sandbox/meta/test-support";
import { createGraphClient, GraphApiError, GraphNetworkError, MediaTooLargeError } from "./graph-client";

type Answer = { status: number; body: unknown; headers?: Record<string, string> } | Error;

/** A fetch that answers from a script and records what it was asked. */
function scripted(answers: Answer[]) {
  const calls: { url: URL; method: string; headers: Record<string, string>; body?: string }[] = [];
  const fetchImpl = (async (input: URL, init: RequestInit) => {
    calls.push({
      url: new URL(input),
      method: String(init.method),
      headers: init.headers as Record<string, string>,
      body: init.body as string | undefined,
    });
    const next = answers.shift();
    if (!next) throw new Error("no scripted answer left");
    if (next instanceof Error) throw next;
    return new Response(JSON.stringify(next.body), {
      status: next.status,
      headers: { "content-type": "application/json", ...next.headers },
    });
  }) as unknown as typeof fetch;
  const client = createGraphClient({
    baseUrl: "https://graph.example/",
    version: "v25.0",
    appId: "111",
    appSecret: "s3cret",
    timeoutMs: 1000,
    backoffMs: 1,
    fetch: fetchImpl,
  });
  return { client, calls };
}

const graphError = (code: number, extra: Record<string, unknown> = {}) => ({
  error: { message: `(#${code}) boom`, type: "OAuthException", code, fbtrace_id: "AbCdEf123", ...extra },
});

describe("Graph API client", () => {
  it("exchanges a code without a bearer token, on the configured base URL and version", async () => {
    const { client, calls } = scripted([{ status: 200, body: { access_token: "EAAtoken", token_type: "bearer", expires_in: 5183944 } }]);
    expect(await client.exchangeCode("AQcode")).toEqual({ accessToken: "EAAtoken", expiresIn: 5183944 });
    expect(calls[0]!.url.toString()).toBe("https://graph.example/v25.0/oauth/access_token?client_id=111&client_secret=s3cret&code=AQcode");
    expect(calls[0]!.headers.Authorization).toBeUndefined();
  });

  it("turns the Graph error envelope into a typed error keeping code, subcode and fbtrace_id", async () => {
    const { client, calls } = scripted([
      { status: 400, body: graphError(100, { error_subcode: 36009, message: "This authorization code has been used." }) },
    ]);
    const error = await client.exchangeCode("used").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GraphApiError);
    expect(error).toMatchObject({
      step: "oauth",
      status: 400,
      code: 100,
      subcode: 36009,
      fbtraceId: "AbCdEf123",
      message: "This authorization code has been used.",
    });
    expect(calls).toHaveLength(1); // a used code is not worth a second try
  });

  it("retries throttling and transient errors with backoff, then succeeds", async () => {
    const { client, calls } = scripted([
      { status: 400, body: graphError(80007) },
      { status: 500, body: graphError(131000) },
      {
        status: 200,
        body: { data: [{ id: "1", display_phone_number: "+254 711 000 001", quality_rating: "GREEN", platform_type: "CLOUD_API" }] },
      },
    ]);
    const numbers = await client.listPhoneNumbers("555", "EAAtoken");
    expect(numbers).toEqual([
      expect.objectContaining({ id: "1", displayPhoneNumber: "+254 711 000 001", qualityRating: "GREEN", platformType: "CLOUD_API" }),
    ]);
    expect(calls).toHaveLength(3);
    expect(calls[2]!.headers.Authorization).toBe("Bearer EAAtoken");
  });

  it("does not retry errors a retry cannot fix, nor a non-idempotent call whose answer was lost", async () => {
    const perm = scripted([{ status: 403, body: graphError(10) }]);
    await expect(perm.client.subscribeApp("555", "t")).rejects.toMatchObject({ code: 10 });
    expect(perm.calls).toHaveLength(1);

    const lost = scripted([new TypeError("fetch failed")]);
    await expect(lost.client.registerPhoneNumber("42", "t", "123456")).rejects.toBeInstanceOf(GraphNetworkError);
    expect(lost.calls).toHaveLength(1);
    expect(JSON.parse(lost.calls[0]!.body!)).toEqual({ messaging_product: "whatsapp", pin: "123456" });

    const read = scripted([new TypeError("fetch failed"), { status: 200, body: { id: "42", display_phone_number: "+254 700 000 000" } }]);
    expect((await read.client.getPhoneNumber("42", "t")).id).toBe("42");
    expect(read.calls).toHaveLength(2);
  });

  it("gives up after the configured attempts", async () => {
    const { client, calls } = scripted([
      { status: 400, body: graphError(4) },
      { status: 400, body: graphError(4) },
      { status: 400, body: graphError(4) },
    ]);
    await expect(client.debugToken("t")).rejects.toMatchObject({ code: 4 });
    expect(calls).toHaveLength(3);
  });

  it("reads debug_token's granular scopes and expiry", async () => {
    const { client, calls } = scripted([
      {
        status: 200,
        body: {
          data: {
            is_valid: true,
            app_id: "111",
            expires_at: 0,
            scopes: ["whatsapp_business_management"],
            granular_scopes: [{ scope: "whatsapp_business_management", target_ids: ["555"] }, { scope: "business_management" }],
          },
        },
      },
    ]);
    expect(await client.debugToken("EAAx")).toMatchObject({
      isValid: true,
      expiresAt: 0,
      granularScopes: [
        { scope: "whatsapp_business_management", targetIds: ["555"] },
        { scope: "business_management", targetIds: [] },
      ],
    });
    expect(calls[0]!.url.searchParams.get("access_token")).toBe("111|s3cret");
  });

  it("uploads a file through the Resumable Upload API: a session, then the bytes with OAuth and file_offset, answering the handle", async () => {
    const { client, calls } = scripted([
      { status: 200, body: { id: "upload:MTphdHRh?sig=ARZx" } },
      { status: 200, body: { h: "4::aW1hZ2UvcG5n:ARb" } },
    ]);
    const bytes = new Uint8Array([1, 2, 3, 4]);
    expect(await client.uploadFile("EAAtoken", { fileName: "a b.png", contentType: "image/png", bytes })).toBe("4::aW1hZ2UvcG5n:ARb");
    expect(calls[0]!.url.toString()).toBe("https://graph.example/v25.0/111/uploads?file_name=a+b.png&file_length=4&file_type=image%2Fpng");
    expect(calls[0]!.headers.Authorization).toBe("Bearer EAAtoken");
    expect(calls[1]!.url.toString()).toBe("https://graph.example/v25.0/upload:MTphdHRh?sig=ARZx");
    expect(calls[1]!.headers).toMatchObject({ Authorization: "OAuth EAAtoken", file_offset: "0" });
  });

  it("resumes an upload whose answer was lost from the offset Meta reports, never from the start", async () => {
    const { client, calls } = scripted([
      { status: 200, body: { id: "upload:abc" } },
      new TypeError("socket hang up"),
      { status: 200, body: { id: "upload:abc", file_offset: 3 } },
      { status: 200, body: { h: "4::x:y" } },
    ]);
    const bytes = new Uint8Array([1, 2, 3, 4, 5]);
    expect(await client.uploadFile("EAAtoken", { fileName: "a.png", contentType: "image/png", bytes })).toBe("4::x:y");
    expect(calls.map((c) => `${c.method} ${c.url.pathname}`)).toEqual([
      "POST /v25.0/111/uploads",
      "POST /v25.0/upload:abc",
      "GET /v25.0/upload:abc",
      "POST /v25.0/upload:abc",
    ]);
    expect(calls[3]!.headers.file_offset).toBe("3");
    expect([...(calls[3]!.body as unknown as Uint8Array)]).toEqual([4, 5]);
  });

  it("gives up on an upload Meta refuses for good, and on a session id that is not Meta's", async () => {
    const refused = scripted([
      { status: 200, body: { id: "upload:abc" } },
      { status: 400, body: graphError(100) },
    ]);
    await expect(
      refused.client.uploadFile("t", { fileName: "a.png", contentType: "image/png", bytes: new Uint8Array(1) }),
    ).rejects.toMatchObject({
      step: "upload.send",
      code: 100,
    });
    expect(refused.calls).toHaveLength(2);
    const odd = scripted([{ status: 200, body: { id: "../../me" } }]);
    await expect(
      odd.client.uploadFile("t", { fileName: "a.png", contentType: "image/png", bytes: new Uint8Array(1) }),
    ).rejects.toBeInstanceOf(GraphNetworkError);
  });
});

describe("Graph API client: messages and media, against the in-process Meta sandbox", () => {
  let h: SendingHarness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  const CUSTOMER = "254712345678";

  async function sandboxClient(overrides: Partial<MetaSandboxOptions> = {}) {
    h = await startSending(overrides);
    const client = createGraphClient({
      baseUrl: `${h.base}/graph`,
      version: "v25.0",
      appId: APP_ID,
      appSecret: APP_SECRET,
      timeoutMs: 5000,
      backoffMs: 1,
    });
    return { harness: h, client };
  }

  it("sends a message and answers its wamid, the wa_id and, for templates, the message status", async () => {
    const { harness, client } = await sandboxClient();
    await harness.customerWrites(CUSTOMER);
    const sent = await client.sendMessage(harness.business.phoneNumberId, harness.token, {
      to: "+254 712 345 678",
      type: "text",
      text: { body: "Karibu" },
    });
    expect(sent).toEqual({ wamid: expect.stringMatching(/^wamid\./), waId: CUSTOMER });
    harness.sandbox.createTemplateAtMeta(harness.business.wabaId, { name: "salamu", language: "sw", category: "MARKETING" });
    const templated = await client.sendMessage(harness.business.phoneNumberId, harness.token, {
      to: CUSTOMER,
      type: "template",
      template: { name: "salamu", language: { code: "sw" } },
    });
    expect(templated.messageStatus).toBe("accepted");
    expect(harness.sandbox.messages().map((m) => m.wamid)).toEqual([sent.wamid, templated.wamid]);
  });

  it("never retries a send itself, even a transient error, and keeps Meta's details and user texts", async () => {
    const { harness, client } = await sandboxClient();
    await harness.customerWrites(CUSTOMER);
    harness.sandbox.injectFault({ step: "messages.send", error: { status: 500, code: 131000, isTransient: true }, times: 1 });
    const transient = await client
      .sendMessage(harness.business.phoneNumberId, harness.token, { to: CUSTOMER, text: { body: "x" } })
      .catch((e: unknown) => e);
    expect(transient).toBeInstanceOf(GraphApiError);
    expect(transient).toMatchObject({ step: "messages.send", code: 131000, retryable: true });
    expect(harness.sandbox.calls().filter((c) => c.step === "messages.send")).toHaveLength(1);

    harness.sandbox.createTemplateAtMeta(harness.business.wabaId, {
      name: "oda",
      language: "sw",
      category: "UTILITY",
      components: [{ type: "BODY", text: "{{1}} {{2}} {{3}}", example: { body_text: [["a", "b", "c"]] } }],
    });
    const mismatch = await client
      .sendMessage(harness.business.phoneNumberId, harness.token, {
        to: CUSTOMER,
        type: "template",
        template: { name: "oda", language: { code: "sw" }, components: [{ type: "body", parameters: [{ type: "text", text: "a" }] }] },
      })
      .catch((e: unknown) => e);
    expect(mismatch).toMatchObject({
      code: 132000,
      details: "body: number of localizable_params (1) does not match the expected number of params (3)",
    });
    const expired = await client
      .sendMessage(harness.business.phoneNumberId, harness.token, { to: "254700000190", text: { body: "x" } })
      .catch((e: unknown) => e);
    expect(expired).toMatchObject({ status: 401, code: 190, subcode: 463 });
  });

  it("keeps error_user_title and error_user_msg", async () => {
    const { client } = scripted([
      {
        status: 400,
        body: graphError(100, { error_user_title: "Wrong file", error_user_msg: "Upload a JPEG.", error_data: { details: "d" } }),
      },
    ]);
    const error = await client.getMedia("1", "t").catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 100, userTitle: "Wrong file", userMessage: "Upload a JPEG.", details: "d" });
  });

  it("marks a customer's message read, with the typing indicator", async () => {
    const { harness, client } = await sandboxClient();
    const { wamid } = await harness.customerWrites(CUSTOMER);
    await client.markRead(harness.business.phoneNumberId, harness.token, wamid, true);
    await expect(client.markRead(harness.business.phoneNumberId, harness.token, "wamid.other")).rejects.toMatchObject({
      code: 100,
      subcode: 33,
    });
  });

  it("uploads media, reads its URL, downloads the bytes within a limit, and deletes it", async () => {
    const { harness, client } = await sandboxClient();
    const bytes = new Uint8Array(Buffer.concat([Buffer.from("%PDF-1.4\n"), Buffer.alloc(2000, 65)]));
    const id = await client.uploadMedia(harness.business.phoneNumberId, harness.token, {
      bytes,
      contentType: "application/pdf",
      fileName: "risiti.pdf",
    });
    expect(id).toMatch(/^\d+$/);
    const media = await client.getMedia(id, harness.token, harness.business.phoneNumberId);
    expect(media).toMatchObject({ mimeType: "application/pdf", fileSize: bytes.length, sha256: expect.stringMatching(/^[0-9a-f]{64}$/) });
    expect(await client.downloadMedia(media.url, harness.token, 10_000)).toEqual(bytes);
    await expect(client.downloadMedia(media.url, harness.token, 100)).rejects.toBeInstanceOf(MediaTooLargeError);
    await expect(client.downloadMedia(media.url, "EAAwrong", 10_000)).rejects.toMatchObject({ status: 401, code: 190 });

    const sent = await harness.customerWrites(CUSTOMER);
    expect(sent.wamid).toBeTruthy();
    await client.sendMessage(harness.business.phoneNumberId, harness.token, { to: CUSTOMER, type: "document", document: { id } });

    await client.deleteMedia(id, harness.token);
    await client.deleteMedia(id, harness.token); // already gone: done
    await expect(client.getMedia(id, harness.token)).rejects.toMatchObject({ code: 100, subcode: 33 });
  });

  it("downloads a customer's photo in two hops", async () => {
    const { harness, client } = await sandboxClient();
    const { mediaId } = await harness.sandbox.sendInbound({ phoneNumberId: harness.business.phoneNumberId, from: CUSTOMER, type: "image" });
    const media = await client.getMedia(mediaId!, harness.token, harness.business.phoneNumberId);
    const bytes = await client.downloadMedia(media.url, harness.token, 1024 * 1024);
    expect(Buffer.from(bytes.subarray(0, 8)).toString("hex")).toBe("89504e470d0a1a0a");
  });

  it("refuses a download that redirects, and one whose length is over the limit before reading it", async () => {
    const { client, calls } = scripted([]);
    const redirecting = createGraphClient({
      baseUrl: "https://graph.example",
      version: "v25.0",
      appId: "1",
      appSecret: "s",
      timeoutMs: 1000,
      attempts: 1,
      fetch: (async (_url: URL, init: RequestInit) => {
        expect(init.redirect).toBe("error");
        throw new TypeError("fetch failed: redirect mode is set to error");
      }) as unknown as typeof fetch,
    });
    await expect(redirecting.downloadMedia("https://lookaside.example/x", "t", 10)).rejects.toBeInstanceOf(GraphNetworkError);
    const declared = createGraphClient({
      baseUrl: "https://graph.example",
      version: "v25.0",
      appId: "1",
      appSecret: "s",
      timeoutMs: 1000,
      fetch: (async () => new Response("x".repeat(50), { headers: { "content-length": "50" } })) as unknown as typeof fetch,
    });
    await expect(declared.downloadMedia("https://lookaside.example/x", "t", 10)).rejects.toMatchObject({
      name: "MediaTooLargeError",
      size: 50,
    });
    await expect(client.downloadMedia("file:///etc/passwd", "t", 10)).rejects.toBeInstanceOf(GraphNetworkError);
    expect(calls).toHaveLength(0);
  });
});
