import type { Response } from "express";
import { page as basePage } from "../console-page";

export { escapeHtml, when, backWithNotice, noticeOf } from "../console-page";

/** Shopify's green on the sandbox's pages. */
export const page = (res: Response, options: { title: string; body: string; width?: number; status?: number }) =>
  basePage(res, { ...options, accent: "#008060" });
