// Plain node:http requests: unlike fetch, they hand back the bytes exactly as they crossed the
// wire, so a gzip response can be measured before it is decompressed.
import http from "node:http";

/** One request; `body` is the raw (possibly compressed) response body as a Buffer. */
export function request(url, { method = "GET", headers = {}, body } = {}) {
  return new Promise((resolve, reject) => {
    const outgoing = http.request(url, { method, headers, agent: false }, (response) => {
      const chunks = [];
      response.on("data", (chunk) => chunks.push(chunk));
      response.on("end", () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks) }));
      response.on("error", reject);
    });
    outgoing.setTimeout(30_000, () => outgoing.destroy(new Error(`timed out: ${method} ${url}`)));
    outgoing.on("error", reject);
    outgoing.end(body);
  });
}

/** The JSON API refuses cookie-authenticated writes without JSON and a same-origin Origin (docs/decisions/003). */
export function jsonHeaders(baseUrl) {
  return { "Content-Type": "application/json", Origin: baseUrl };
}

/**
 * Signs in through POST /api/auth/signin and returns the `jumbe_session` cookie pair. Behind a
 * proxy, `site` gives the Host header and Origin a browser would send ({ host, origin }).
 */
export async function signIn(baseUrl, account, site = {}) {
  const response = await request(`${baseUrl}/api/auth/signin`, {
    method: "POST",
    headers: { ...jsonHeaders(site.origin ?? baseUrl), ...(site.host ? { Host: site.host } : {}) },
    body: JSON.stringify({ email: account.email, password: account.password }),
  });
  if (response.status !== 200) {
    throw new Error(`sign-in as ${account.email} answered ${response.status}: ${response.body.toString("utf8").slice(0, 200)}`);
  }
  const setCookie = [response.headers["set-cookie"] ?? []].flat();
  const session = setCookie.map((line) => line.split(";")[0]).find((pair) => pair.startsWith("jumbe_session="));
  if (!session) throw new Error(`sign-in as ${account.email} set no jumbe_session cookie`);
  return session;
}
