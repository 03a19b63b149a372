import type { Response } from "express";

export const escapeHtml = (value: string) =>
  value.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!);

const STYLE = `
:root{color-scheme:light}
body{font:15px/1.5 system-ui,-apple-system,"Segoe UI",sans-serif;margin:0;color:#011b33;background:#f3f6f9}
main{max-width:var(--w,460px);margin:2rem auto;padding:0 1rem}
.card{background:#fff;border:1px solid #dfe3e8;border-radius:.5rem;padding:1.25rem;margin:1rem 0}
h1{font-size:1.3rem;margin:.25rem 0 .5rem}h2{font-size:1.05rem;margin:0 0 .5rem}
.brand{color:#0ba4db;font-weight:700}
.muted,small{color:#4e5d6c}
.amount{font-size:1.6rem;font-weight:700;margin:.25rem 0}
label{display:block;margin:.75rem 0 .2rem;font-weight:600}
input{font:inherit;padding:.5rem;border:1px solid #a9b4c0;border-radius:.35rem;width:100%;box-sizing:border-box}
.row{display:grid;grid-template-columns:1fr 1fr;gap:.75rem}
button,.button{font:inherit;font-weight:600;padding:.6rem 1rem;border-radius:.35rem;border:1px solid #3bb75e;background:#3bb75e;color:#fff;cursor:pointer;text-decoration:none;display:inline-block}
button.wide{width:100%;margin-top:1rem}
.secondary{background:#fff;color:#011b33;border-color:#a9b4c0}
a{color:#0a6ea3}
button:focus-visible,a:focus-visible,input:focus-visible{outline:3px solid #0a58ca;outline-offset:2px}
.error{border-left:4px solid #c0392b;background:#fdecea;padding:.6rem .9rem;border-radius:.35rem}
.notice{border-left:4px solid #1e8e3e;background:#e6f4ea;padding:.6rem .9rem;border-radius:.35rem}
table{border-collapse:collapse;width:100%;font-size:.9rem}
th,td{text-align:left;padding:.35rem .5rem;border-bottom:1px solid #e4e6eb;vertical-align:top}
th{background:#f5f6f7}
code,pre{font:12px/1.45 ui-monospace,SFMono-Regular,Menlo,monospace}
pre{white-space:pre-wrap;word-break:break-all;background:#f5f6f7;padding:.5rem;border-radius:.35rem;max-height:16rem;overflow:auto}
.pill{display:inline-block;padding:0 .4rem;border-radius:999px;font-size:.8rem;background:#e4e6eb}
.pill.success,.pill.delivered{background:#e6f4ea;color:#135c27}.pill.failed{background:#fdecea;color:#8a1f11}.pill.ongoing,.pill.pending{background:#fff4e5;color:#7a4500}
`;

/** A complete page, its inline style under the request's CSP nonce; never cached. */
export function page(res: Response, options: { title: string; body: string; width?: number; status?: number }) {
  const nonce = escapeHtml(String(res.locals.cspNonce ?? ""));
  const width = options.width ? `main{--w:${options.width}px}` : "";
  res
    .status(options.status ?? 200)
    .set({ "Cache-Control": "no-store" })
    .type("html")
    .send(
      `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">` +
        `<meta name="referrer" content="no-referrer"><meta name="robots" content="noindex"><title>${escapeHtml(options.title)}</title>` +
        `<style nonce="${nonce}">${STYLE}${width}</style></head><body>${options.body}</body></html>`,
    );
}

/** "KES 1,234.50" from cents. */
export function kes(cents: number, currency = "KES") {
  const units = (cents / 100).toLocaleString("en-KE", { minimumFractionDigits: 2, maximumFractionDigits: 2 });
  return `${currency} ${units}`;
}
