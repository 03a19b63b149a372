import type { Response } from "express";
import { escapeHtml } from "./util";

const STYLE = `
:root{color-scheme:light}
body{font:15px/1.5 system-ui,-apple-system,"Segoe UI",sans-serif;margin:0;color:#1c1e21;background:#f0f2f5}
main{max-width:var(--w,640px);margin:2rem auto;padding:0 1rem}
.card{background:#fff;border:1px solid #dadde1;border-radius:.5rem;padding:1.25rem;margin:1rem 0}
h1{font-size:1.35rem;margin:.25rem 0 .5rem}h2{font-size:1.1rem;margin:0 0 .5rem}
.brand{display:flex;gap:.5rem;align-items:center;color:#1877f2;font-weight:700}
.muted,small{color:#606770}
fieldset{border:1px solid #dadde1;border-radius:.5rem;margin:1rem 0;padding:.75rem 1rem}
legend{font-weight:600;padding:0 .25rem}
.choice{display:flex;gap:.5rem;align-items:flex-start;padding:.35rem 0}
.choice input{margin-top:.3rem}
label.field{display:block;margin:.5rem 0 .15rem;font-weight:500}
input[type=text],input[type=tel],input[type=number],select,textarea{font:inherit;padding:.4rem .5rem;border:1px solid #bec3c9;border-radius:.35rem;width:100%;box-sizing:border-box;background:#fff}
.actions{display:flex;gap:.5rem;flex-wrap:wrap;margin-top:1rem}
.actions.tight{margin-top:0;gap:.25rem}.actions.tight button{padding:.2rem .5rem;font-size:.85rem}
button,.button{font:inherit;font-weight:600;padding:.5rem 1rem;border-radius:.35rem;border:1px solid #1877f2;background:#1877f2;color:#fff;cursor:pointer;text-decoration:none;display:inline-block}
button.secondary,.button.secondary{background:#fff;color:#1c1e21;border-color:#bec3c9}
button:focus-visible,a:focus-visible,input:focus-visible,select:focus-visible{outline:3px solid #0a58ca;outline-offset:2px}
.error{border-left:4px solid #c0392b;background:#fdecea;padding:.75rem 1rem;border-radius:.35rem}
.notice{border-left:4px solid #1e8e3e;background:#e6f4ea;padding:.75rem 1rem;border-radius:.35rem}
table{border-collapse:collapse;width:100%;font-size:.9rem}
th,td{text-align:left;padding:.35rem .5rem;border-bottom:1px solid #e4e6eb;vertical-align:top}
th{background:#f5f6f7}
code,pre{font:12px/1.45 ui-monospace,SFMono-Regular,Menlo,monospace}
pre{white-space:pre-wrap;word-break:break-all;background:#f5f6f7;padding:.5rem;border-radius:.35rem;max-height:24rem;overflow:auto}
.grid{display:grid;gap:1rem;grid-template-columns:repeat(auto-fit,minmax(260px,1fr))}
.pill{display:inline-block;padding:0 .4rem;border-radius:999px;font-size:.8rem;background:#e4e6eb}
.pill.ok{background:#e6f4ea;color:#135c27}.pill.bad{background:#fdecea;color:#8a1f11}.pill.wait{background:#fff4e5;color:#7a4500}
`;

/** A complete HTML page with the CSP nonce on its inline style (and script, when given). */
export function page(res: Response, options: { title: string; body: string; script?: string; width?: number; status?: number }) {
  const nonce = escapeHtml(String(res.locals.cspNonce ?? ""));
  const width = options.width ? `main{--w:${options.width}px}` : "";
  res.setHeader("Cache-Control", "no-store");
  res
    .status(options.status ?? 200)
    .type("html")
    .send(
      `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">` +
        `<meta name="referrer" content="no-referrer"><title>${escapeHtml(options.title)}</title>` +
        `<style nonce="${nonce}">${STYLE}${width}</style></head><body>${options.body}` +
        (options.script ? `<script nonce="${nonce}">${options.script}</script>` : "") +
        `</body></html>`,
    );
}

export const brand = `<div class="brand" aria-hidden="true"><span>◉</span><span>Meta · sandbox</span></div>`;
