/**
 * One CSV cell (RFC 4180): always quoted, quotes doubled. A cell a spreadsheet would read as a
 * formula (starting with =, +, -, @, tab or carriage return) gets a leading apostrophe, so an
 * action or user agent written by someone else cannot run in the reader's spreadsheet.
 */
export function csvCell(value: string | number | null | undefined) {
  let text = value === null || value === undefined ? "" : String(value);
  if (/^[=+\-@\t\r]/.test(text)) text = `'${text}`;
  return `"${text.replace(/"/g, '""')}"`;
}

export function csvRow(values: (string | number | null | undefined)[]) {
  return `${values.map(csvCell).join(",")}\r\n`;
}
