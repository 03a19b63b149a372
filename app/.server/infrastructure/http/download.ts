/** A file to save: never cached, never sniffed as anything else. */
function download(contentType: string, fileName: string, body: BodyInit): Response {
  return new Response(body, {
    headers: {
      "Content-Type": contentType,
      "Content-Disposition": `attachment; filename="${fileName}"`,
      "Cache-Control": "no-store",
      "X-Content-Type-Options": "nosniff",
    },
  });
}

/** A JSON file to save (a person's data). */
export function jsonDownload(fileName: string, body: string): Response {
  return download("application/json; charset=utf-8", fileName, body);
}

/** A download's 404 in words (the request's language), not a page. */
export function notFoundText(message: string): Response {
  return new Response(message, { status: 404, headers: { "Content-Type": "text/plain; charset=utf-8", "Cache-Control": "no-store" } });
}

/** A CSV file to save. */
export function csvDownload(fileName: string, body: BodyInit): Response {
  return download("text/csv; charset=utf-8", fileName, body);
}

/** A download's refused query (400) in words, not a page. */
export function badQueryText(message: string): Response {
  return new Response(`${message}\n`, {
    status: 400,
    headers: { "Content-Type": "text/plain; charset=utf-8", "Cache-Control": "no-store", "X-Content-Type-Options": "nosniff" },
  });
}
