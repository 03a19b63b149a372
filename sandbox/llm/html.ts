import type { Response } from "express";

export const escapeHtml = (value: string) =>
  value.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!);

const STYLE = `
:root{color-scheme:light}
body{font:15px/1.5 system-ui,-apple-system,"Segoe UI",sans-serif;margin:0;color:#111827;background:#f3f4f6}
main{max-width:1100px;margin:2rem auto;padding:0 1rem}
.card{background:#fff;border:1px solid #d1d5db;border-radius:.5rem;padding:1.25rem;margin:1rem 0}
h1{font-size:1.3rem;margin:.25rem 0 .5rem}h2{font-size:1.05rem;margin:0 0 .5rem}
.brand{color:#4338ca;font-weight:700}
.muted,small{color:#4b5563}
button{font:inherit;font-weight:600;padding:.5rem 1rem;border-radius:.35rem;border:1px solid #9ca3af;background:#fff;color:#111827;cursor:pointer}
a{color:#3730a3}
button:focus-visible,a:focus-visible{outline:3px solid #0a58ca;outline-offset:2px}
.notice{border-left:4px solid #15803d;background:#ecfdf3;padding:.6rem .9rem;border-radius:.35rem}
table{border-collapse:collapse;width:100%;font-size:.9rem}
th,td{text-align:left;padding:.35rem .5rem;border-bottom:1px solid #e5e7eb;vertical-align:top}
th{background:#f9fafb}
td.text{max-width:28rem;overflow-wrap:anywhere}
code{font:12px/1.45 ui-monospace,SFMono-Regular,Menlo,monospace}
.pill{display:inline-block;padding:0 .4rem;border-radius:999px;font-size:.8rem;background:#e5e7eb}
.pill.ok{background:#ecfdf3;color:#14532d}.pill.bad{background:#fef2f2;color:#7f1d1d}.pill.wait{background:#fff7ed;color:#7c2d12}.pill.tool{background:#eef2ff;color:#312e81}
`;

/** A complete page, its inline style under the request's CSP nonce; never cached. */
export function page(res: Response, options: { title: string; body: string }) {
  const nonce = escapeHtml(String(res.locals.cspNonce ?? ""));
  res
    .status(200)
    .set({ "Cache-Control": "no-store" })
    .type("html")
    .send(
      `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">` +
        `<meta name="referrer" content="no-referrer"><meta name="robots" content="noindex"><title>${escapeHtml(options.title)}</title>` +
        `<style nonce="${nonce}">${STYLE}</style></head><body>${options.body}</body></html>`,
    );
}
