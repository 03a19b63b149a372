import { describe, expect, it } from "vitest";
import { renderToStaticMarkup } from "react-dom/server";
import type { SubmissionResult } from "@conform-to/react";
import { getFormProps, getInputProps, getSelectProps, getTextareaProps, useFormState } from "./form-state";

// The server's half stays Conform's (`submission.reply()`): these replies are what it sends.

/** The attributes of the first element whose tag contains `marker`, as name=value pairs. */
function attributesOf(html: string, marker: string) {
  const tag = html.match(new RegExp(`<\\w+[^>]*${marker}[^>]*>`))?.[0] ?? "";
  return Object.fromEntries([...tag.matchAll(/([\w-]+)="([^"]*)"/g)].map((m) => [m[1]!.toLowerCase(), m[2]]));
}

function TopupForm({ lastResult }: { lastResult?: SubmissionResult<string[]> | null }) {
  const [form, fields] = useFormState({ id: "topup", lastResult, defaultValue: { amount: "1000", method: "mpesa" } });
  return (
    <form {...getFormProps(form)}>
      {form.errors ? <p id={form.errorId}>{form.errors[0]}</p> : null}
      <input {...getInputProps(fields.amount!, { type: "text" })} key={fields.amount!.key} />
      <p id={fields.amount!.errorId}>{fields.amount!.errors?.[0] ?? ""}</p>
      <input {...getInputProps(fields.method!, { type: "radio", value: "mpesa" })} />
      <input {...getInputProps(fields.method!, { type: "radio", value: "card" })} />
      <textarea {...getTextareaProps(fields.note!)} />
      <select {...getSelectProps(fields.plan!)} />
    </form>
  );
}

describe("form state from the server's reply", () => {
  it("starts from the default values, with no errors and the form's own ids", () => {
    const html = renderToStaticMarkup(<TopupForm />);
    expect(attributesOf(html, 'id="topup"')).toEqual({ id: "topup", novalidate: "" });
    expect(attributesOf(html, 'id="topup-amount"')).toEqual({
      id: "topup-amount",
      name: "amount",
      form: "topup",
      type: "text",
      value: "1000",
    });
    expect(attributesOf(html, 'value="mpesa"')).toMatchObject({ id: "topup-method", name: "method", type: "radio", checked: "" });
    expect(attributesOf(html, 'value="card"')).not.toHaveProperty("checked");
    expect(html).not.toContain("aria-invalid");
  });

  it("puts back what was posted and says each error at its field, tied by aria-describedby", () => {
    const reply: SubmissionResult<string[]> = {
      status: "error",
      initialValue: { amount: "5", method: "card", note: "Habari" },
      error: { amount: ["Enter a whole number of shillings from KES 10 to KES 250,000."], "": ["Try again."] },
    };
    const html = renderToStaticMarkup(<TopupForm lastResult={reply} />);
    expect(attributesOf(html, 'id="topup-amount"')).toEqual({
      id: "topup-amount",
      name: "amount",
      form: "topup",
      type: "text",
      value: "5",
      "aria-invalid": "true",
      "aria-describedby": "topup-amount-error",
    });
    expect(html).toContain('<p id="topup-amount-error">Enter a whole number of shillings from KES 10 to KES 250,000.</p>');
    expect(attributesOf(html, 'id="topup"')).toEqual({ id: "topup", novalidate: "", "aria-describedby": "topup-error" });
    expect(html).toContain('<p id="topup-error">Try again.</p>');
    expect(attributesOf(html, 'value="card"')).toHaveProperty("checked", "");
    expect(html).toContain(">Habari</textarea>");
  });

  it("a reply that resets the form (initialValue null) goes back to the defaults without errors", () => {
    const html = renderToStaticMarkup(<TopupForm lastResult={{ status: "success", initialValue: null }} />);
    expect(html).toContain('value="1000"');
    expect(html).not.toContain("aria-invalid");
  });
});
