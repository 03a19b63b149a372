import type { Response } from "express";

export const escapeHtml = (value: string) =>
  value.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!);

const STYLE = `
:root{color-scheme:light}
body{font:15px/1.5 system-ui,-apple-system,"Segoe UI",sans-serif;margin:0;color:#1f2933;background:#f5f7fa}
main{max-width:var(--w,520px);margin:2rem auto;padding:0 1rem}
.card{background:#fff;border:1px solid #dde3ea;border-radius:.5rem;padding:1.25rem;margin:1rem 0}
h1{font-size:1.3rem;margin:.25rem 0 .5rem}h2{font-size:1.05rem;margin:0 0 .5rem}
.brand{color:var(--accent);font-weight:700}
.muted,small{color:#52606d}
label{display:block;margin:.6rem 0 .2rem;font-weight:600}
label.choice{font-weight:400;display:flex;gap:.5rem;align-items:baseline}
input,select,textarea{font:inherit;padding:.45rem;border:1px solid #9aa5b1;border-radius:.35rem;box-sizing:border-box}
input[type=text],input[type=email],input[type=tel],input[type=number],select,textarea{width:100%}
button{font:inherit;font-weight:600;padding:.5rem .9rem;border-radius:.35rem;border:1px solid var(--accent);background:var(--accent);color:#fff;cursor:pointer}
button.secondary{background:#fff;color:#1f2933;border-color:#9aa5b1}
.actions{display:flex;gap:.5rem;flex-wrap:wrap;margin-top:1rem}
a{color:#0b5fa5}
button:focus-visible,a:focus-visible,input:focus-visible,select:focus-visible,textarea:focus-visible{outline:3px solid #0a58ca;outline-offset:2px}
.error{border-left:4px solid #c0392b;background:#fdecea;padding:.6rem .9rem;border-radius:.35rem}
.notice{border-left:4px solid #1e8e3e;background:#e6f4ea;padding:.6rem .9rem;border-radius:.35rem}
table{border-collapse:collapse;width:100%;font-size:.9rem}
th,td{text-align:left;padding:.35rem .5rem;border-bottom:1px solid #e4e7eb;vertical-align:top}
th{background:#f0f2f5}
code,pre{font:12px/1.45 ui-monospace,SFMono-Regular,Menlo,monospace}
pre{white-space:pre-wrap;word-break:break-all;background:#f0f2f5;padding:.5rem;border-radius:.35rem;max-height:16rem;overflow:auto}
.pill{display:inline-block;padding:0 .4rem;border-radius:999px;font-size:.8rem;background:#e4e7eb}
.pill.delivered{background:#e6f4ea;color:#135c27}.pill.failed{background:#fdecea;color:#8a1f11}.pill.pending{background:#fff4e5;color:#7a4500}
`;

/** A complete sandbox page, its inline style under the request's CSP nonce; never cached. */
export function page(res: Response, options: { title: string; body: string; accent: string; width?: number; status?: number }) {
  const nonce = escapeHtml(String(res.locals.cspNonce ?? ""));
  const extra = `:root{--accent:${options.accent}}${options.width ? `main{--w:${options.width}px}` : ""}`;
  res
    .status(options.status ?? 200)
    .set({ "Cache-Control": "no-store" })
    .type("html")
    .send(
      `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">` +
        `<meta name="referrer" content="no-referrer"><meta name="robots" content="noindex"><title>${escapeHtml(options.title)}</title>` +
        `<style nonce="${nonce}">${STYLE}${extra}</style></head><body>${options.body}</body></html>`,
    );
}

/** "2026-11-27 16:14:27 UTC" from a time in ms or an ISO string. */
export function when(at: number | string | null | undefined) {
  if (at === null || at === undefined) return "—";
  return escapeHtml(
    new Date(at)
      .toISOString()
      .replace("T", " ")
      .replace(/\.\d{3}Z$/, " UTC"),
  );
}

/** A redirect back to a console with a notice. */
export function backWithNotice(res: Response, home: string, notice: string) {
  res.redirect(303, `${home}?notice=${encodeURIComponent(notice.slice(0, 300))}`);
}

export const noticeOf = (query: Record<string, unknown>) => (typeof query.notice === "string" ? query.notice.slice(0, 300) : "");
