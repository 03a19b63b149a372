import type { ReactNode } from "react";

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
