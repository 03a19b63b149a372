import { Fragment, type ReactNode } from "react";

/** A small, mobile-friendly table for legal text (it scrolls sideways on narrow screens rather than overflowing). */
export function LegalTable({ caption, head, rows }: { caption: string; head: readonly string[]; rows: readonly (readonly ReactNode[])[] }) {
  return (
    <div className="mt-4 overflow-x-auto rounded-lg border border-slate-200">
      <table className="w-full border-collapse text-left text-sm leading-6">
        <caption className="sr-only">{caption}</caption>
        <thead className="bg-slate-50 text-slate-900">
          <tr>
            {head.map((label) => (
              <th key={label} scope="col" className="px-3 py-2 font-semibold">
                {label}
              </th>
            ))}
          </tr>
        </thead>
        <tbody className="divide-y divide-slate-200 align-top">
          {rows.map((cells, row) => (
            <tr key={row}>
              {cells.map((cell, column) =>
                column === 0 ? (
                  <th key={column} scope="row" className="px-3 py-2 font-medium text-slate-900">
                    {cell}
                  </th>
                ) : (
                  <td key={column} className="px-3 py-2">
                    {cell}
                  </td>
                ),
              )}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

// Stands around an input's name while a message is written, so the parts can be found in its text.
const MARK = "\u0001";

/**
 * A message with elements inside it (a link, a bold phrase, a date): each of its inputs is given an
 * element in `parts`, drawn where that language's sentence puts it. One message a paragraph, so a
 * translator sees the whole sentence: `rich(m.public_terms_about_p1, { policy: <a href="…">…</a> })`.
 */
export function rich<Inputs extends object>(message: (inputs: Inputs) => string, parts: { [Name in keyof Inputs]: ReactNode }): ReactNode {
  const markers = Object.fromEntries(Object.keys(parts).map((name) => [name, `${MARK}${name}${MARK}`])) as Inputs;
  // Split on the marks: even pieces are text, odd ones the names of parts.
  return message(markers)
    .split(MARK)
    .map((piece, index) => (index % 2 === 0 ? piece : <Fragment key={index}>{parts[piece as keyof Inputs]}</Fragment>));
}
