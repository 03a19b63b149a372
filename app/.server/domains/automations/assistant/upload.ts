import { CsvError, csvRecords } from "../../contacts";
import type { RuleActor } from "../rules";
import {
  ARTICLE_BODY_MAX,
  ARTICLE_TITLE_MAX,
  ASSISTANT_MESSAGES,
  FAQ_CSV_MAX_BYTES,
  FAQ_QUESTION_MAX,
  FAQ_ROWS_MAX,
} from "~/lib/schemas/assistant";
import { addArticles, type ArticleInput, type ArticleView } from "./knowledge";
import { pdfText, PDF_MAX_BYTES } from "./pdf-text";
import { refuseAssistant } from "./settings";

/**
 * Uploads into the knowledge base: a CSV of questions and answers (a row an article: the question is
 * its title, the answer its body) or a text PDF (one article, titled by the file's name). Checked
 * whole before anything is stored: one bad row refuses the file, saying which line and why.
 */

const HEADER_WORDS = new Set(["question", "answer", "swali", "jibu", "maswali", "majibu", "reponse", "réponse"]);

async function* once(bytes: Uint8Array) {
  yield bytes;
}

/** A CSV's rows as articles, or a refusal naming the first bad line. */
export async function faqRowsOf(bytes: Uint8Array): Promise<ArticleInput[]> {
  if (bytes.byteLength > FAQ_CSV_MAX_BYTES) throw refuseAssistant(413, ASSISTANT_MESSAGES.csvTooLarge, "file");
  const rows: ArticleInput[] = [];
  let first = true;
  try {
    for await (const record of csvRecords(once(bytes))) {
      const fields = record.fields.map((f) => f.trim());
      if (fields.every((f) => !f)) continue;
      if (first && fields.length >= 2 && fields.slice(0, 2).every((f) => HEADER_WORDS.has(f.toLowerCase()))) {
        first = false;
        continue;
      }
      first = false;
      if (fields.length < 2 || !fields[0] || !fields[1])
        throw refuseAssistant(400, ASSISTANT_MESSAGES.csvRow(record.line, ASSISTANT_MESSAGES.csvColumns), "file");
      const [question, answer] = fields as [string, string];
      if ([...question].length > Math.min(FAQ_QUESTION_MAX, ARTICLE_TITLE_MAX * 3))
        throw refuseAssistant(400, ASSISTANT_MESSAGES.csvRow(record.line, ASSISTANT_MESSAGES.questionTooLong), "file");
      if ([...answer].length > ARTICLE_BODY_MAX)
        throw refuseAssistant(400, ASSISTANT_MESSAGES.csvRow(record.line, ASSISTANT_MESSAGES.bodyTooLong), "file");
      if (rows.length >= FAQ_ROWS_MAX) throw refuseAssistant(400, ASSISTANT_MESSAGES.csvTooMany, "file");
      // A long question is the title's start; the whole question leads the body so every word is searched.
      const title = [...question].length > ARTICLE_TITLE_MAX ? `${[...question].slice(0, ARTICLE_TITLE_MAX - 1).join("")}…` : question;
      rows.push({ title, body: title === question ? answer : `${question}\n\n${answer}` });
    }
  } catch (error) {
    if (error instanceof CsvError) throw refuseAssistant(400, error.message, "file");
    throw error;
  }
  if (!rows.length) throw refuseAssistant(400, ASSISTANT_MESSAGES.csvEmpty, "file");
  return rows;
}

export async function importFaqCsv(actor: RuleActor, bytes: Uint8Array): Promise<ArticleView[]> {
  return addArticles(actor, await faqRowsOf(bytes), "csv");
}

/** A PDF's text as one article, or a refusal saying why it cannot be read. */
export function pdfArticleOf(fileName: string, bytes: Uint8Array): ArticleInput {
  if (bytes.byteLength > PDF_MAX_BYTES) throw refuseAssistant(413, ASSISTANT_MESSAGES.pdfTooLarge, "file");
  const read = pdfText(bytes);
  if (!read.ok) {
    const messages = {
      not_pdf: ASSISTANT_MESSAGES.pdfNotPdf,
      too_large: ASSISTANT_MESSAGES.pdfTooLarge,
      encrypted: ASSISTANT_MESSAGES.pdfEncrypted,
      no_text: ASSISTANT_MESSAGES.pdfNoText,
      unreadable: ASSISTANT_MESSAGES.pdfUnreadable,
    };
    throw refuseAssistant(read.problem === "too_large" ? 413 : 400, messages[read.problem], "file");
  }
  if ([...read.text].length > ARTICLE_BODY_MAX) throw refuseAssistant(400, ASSISTANT_MESSAGES.pdfTooLong, "file");
  const title =
    fileName
      .replace(/\.pdf$/i, "")
      .replace(/[_-]+/g, " ")
      .trim()
      .slice(0, ARTICLE_TITLE_MAX) || "PDF";
  return { title, body: read.text };
}

export async function importPdf(actor: RuleActor, fileName: string, bytes: Uint8Array): Promise<ArticleView> {
  const [article] = await addArticles(actor, [pdfArticleOf(fileName, bytes)], "pdf");
  return article!;
}
