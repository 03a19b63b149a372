import type { Response } from "express";

/** HTML-escapes text for element content and quoted attribute values. */
export const escapeHtml = (value: string) =>
  value.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!);

const STYLE = `
:root{color-scheme:light}
body{font:15px/1.5 system-ui,-apple-system,"Segoe UI",sans-serif;margin:0;color:#14201a;background:#eef3ef}
main{max-width:var(--w,760px);margin:2rem auto;padding:0 1rem}
.card{background:#fff;border:1px solid #d3ddd6;border-radius:.5rem;padding:1.25rem;margin:1rem 0}
h1{font-size:1.35rem;margin:.25rem 0 .5rem}h2{font-size:1.1rem;margin:0 0 .5rem}
.brand{display:flex;gap:.5rem;align-items:center;color:#2e7d32;font-weight:700}
.muted,small{color:#52605a}
label{display:block;margin:.5rem 0 .15rem;font-weight:500}
input[type=text],input[type=tel],input[type=number],input[type=password],select{font:inherit;padding:.4rem .5rem;border:1px solid #a9b7ae;border-radius:.35rem;width:100%;box-sizing:border-box;background:#fff}
.actions{display:flex;gap:.5rem;flex-wrap:wrap;margin-top:.75rem;align-items:center}
.actions.tight{margin-top:0;gap:.25rem}.actions.tight button{padding:.2rem .5rem;font-size:.85rem}
button,.button{font:inherit;font-weight:600;padding:.5rem 1rem;border-radius:.35rem;border:1px solid #2e7d32;background:#2e7d32;color:#fff;cursor:pointer;text-decoration:none;display:inline-block}
button.secondary,.button.secondary{background:#fff;color:#14201a;border-color:#a9b7ae}
button:focus-visible,a:focus-visible,input:focus-visible,select:focus-visible{outline:3px solid #0a58ca;outline-offset:2px}
.error{border-left:4px solid #b91c1c;background:#fdecea;padding:.75rem 1rem;border-radius:.35rem}
.notice{border-left:4px solid #2e7d32;background:#e6f4ea;padding:.75rem 1rem;border-radius:.35rem}
table{border-collapse:collapse;width:100%;font-size:.9rem}
th,td{text-align:left;padding:.35rem .5rem;border-bottom:1px solid #e1e8e3;vertical-align:top}
th{background:#f4f7f5}
code,pre{font:12px/1.45 ui-monospace,SFMono-Regular,Menlo,monospace}
pre{white-space:pre-wrap;word-break:break-all;background:#f4f7f5;padding:.5rem;border-radius:.35rem;max-height:16rem;overflow:auto;margin:0}
.grid{display:grid;gap:.75rem;grid-template-columns:repeat(auto-fit,minmax(140px,1fr))}
.pill{display:inline-block;padding:0 .4rem;border-radius:999px;font-size:.8rem;background:#e1e8e3}
.pill.ok{background:#e6f4ea;color:#135c27}.pill.bad{background:#fdecea;color:#8a1f11}.pill.wait{background:#fff4e5;color:#7a4500}
.phone{max-width:22rem;margin:1rem auto;border:8px solid #14201a;border-radius:1.5rem;background:#fff;padding:1rem}
.sim{font-family:ui-monospace,monospace;background:#f4f7f5;border-radius:.35rem;padding:.75rem;margin:.5rem 0}
`;

/** A complete HTML page with the CSP nonce on its inline style. */
export function page(res: Response, options: { title: string; body: string; status?: number; refreshSeconds?: number }) {
  const nonce = escapeHtml(String(res.locals.cspNonce ?? ""));
  const refresh = options.refreshSeconds ? `<meta http-equiv="refresh" content="${options.refreshSeconds}">` : "";
  res.setHeader("Cache-Control", "no-store");
  res
    .status(options.status ?? 200)
    .type("html")
    .send(
      `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">` +
        `<meta name="referrer" content="no-referrer">${refresh}<title>${escapeHtml(options.title)}</title>` +
        `<style nonce="${nonce}">${STYLE}</style></head><body>${options.body}</body></html>`,
    );
}

export const brand = `<div class="brand" aria-hidden="true"><span>◉</span><span>M-Pesa (Daraja) · sandbox</span></div>`;

/** Formats an ISO time in Nairobi's time, 24-hour. */
export function nairobiTime(iso: string) {
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : d.toLocaleString("en-KE", { timeZone: "Africa/Nairobi", hour12: false });
}

export function flash(query: Record<string, unknown>) {
  const notice = typeof query.notice === "string" ? query.notice : "";
  const error = typeof query.error === "string" ? query.error : "";
  return (
    (notice ? `<p class="notice" role="status">${escapeHtml(notice)}</p>` : "") +
    (error ? `<p class="error" role="alert">${escapeHtml(error)}</p>` : "")
  );
}
