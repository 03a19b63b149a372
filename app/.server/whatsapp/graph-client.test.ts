import { describe, expect, it } from "vitest";
import { createGraphClient, GraphApiError, GraphNetworkError } from "./graph-client";

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
