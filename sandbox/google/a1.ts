/**
 * A1 notation as the Sheets API reads it: `Sheet1!A1:C10`, `'Kenya customers'!A:C`, `Sheet1!2:5`,
 * `A1:B2` (the first sheet), `Sheet1` (the whole sheet). Rows and columns here are 0-based; an end
 * is exclusive, and absent when the range runs to the sheet's edge.
 */
export interface CellRange {
  sheetTitle?: string;
  startRow: number;
  endRow?: number;
  startCol: number;
  endCol?: number;
}

const CELL = /^([A-Za-z]{0,3})(\d{0,7})$/;

/** "A" → 0, "Z" → 25, "AA" → 26. */
export function columnIndex(letters: string): number {
  let index = 0;
  for (const c of letters.toUpperCase()) index = index * 26 + (c.charCodeAt(0) - 64);
  return index - 1;
}

/** 0 → "A", 26 → "AA". */
export function columnName(index: number): string {
  let name = "";
  for (let n = index + 1; n > 0; n = Math.floor((n - 1) / 26)) name = String.fromCharCode(65 + ((n - 1) % 26)) + name;
  return name;
}

/** A sheet's title as A1 notation needs it: quoted unless it is letters, digits and underscores. */
export function quoteSheet(title: string) {
  return /^[A-Za-z_][A-Za-z0-9_]*$/.test(title) ? title : `'${title.replace(/'/g, "''")}'`;
}

function splitSheet(text: string): { sheet?: string; cells?: string } | null {
  if (text.startsWith("'")) {
    const match = /^'((?:[^']|'')+)'(?:!(.*))?$/.exec(text);
    return match ? { sheet: match[1]!.replace(/''/g, "'"), cells: match[2] } : null;
  }
  const bang = text.lastIndexOf("!");
  return bang === -1 ? { cells: text } : { sheet: text.slice(0, bang), cells: text.slice(bang + 1) };
}

function cellOf(text: string) {
  const match = CELL.exec(text);
  if (!match || (!match[1] && !match[2])) return null;
  return { col: match[1] ? columnIndex(match[1]) : undefined, row: match[2] ? Number(match[2]) - 1 : undefined };
}

/** The cells part (`A1:C3`, `A:C`, `2:5`, `B2`); null when it is not A1 notation. */
function parseCells(cells: string): Omit<CellRange, "sheetTitle"> | null {
  const [from, to, ...rest] = cells.split(":");
  if (rest.length || !from) return null;
  const start = cellOf(from);
  const end = to === undefined ? start : cellOf(to);
  if (!start || !end || (start.row !== undefined && start.row < 0) || (end.row !== undefined && end.row < 0)) return null;
  // `A:C` and `2:5` are whole columns or rows; `A1` alone is one cell.
  if ((start.col === undefined) !== (end.col === undefined) && to !== undefined && start.row === undefined) return null;
  return {
    startRow: start.row ?? 0,
    endRow: end.row === undefined ? undefined : end.row + 1,
    startCol: start.col ?? 0,
    endCol: end.col === undefined ? undefined : end.col + 1,
  };
}

/**
 * The range a request names, or null ("Unable to parse range"). `isSheet` says whether a bare
 * name is one of the spreadsheet's sheets (Google reads `Sheet1` as the sheet, not a cell).
 */
export function parseA1(text: string, isSheet: (title: string) => boolean): CellRange | null {
  const trimmed = text.trim();
  if (!trimmed) return null;
  if (!trimmed.includes("!") && !trimmed.startsWith("'") && isSheet(trimmed)) return { sheetTitle: trimmed, startRow: 0, startCol: 0 };
  const parts = splitSheet(trimmed);
  if (!parts) return null;
  if (parts.cells === undefined || parts.cells === "") return parts.sheet ? { sheetTitle: parts.sheet, startRow: 0, startCol: 0 } : null;
  const cells = parseCells(parts.cells);
  return cells ? { ...cells, ...(parts.sheet ? { sheetTitle: parts.sheet } : {}) } : null;
}

/** `'Kenya customers'!A2:C4` from a sheet and 0-based bounds (ends exclusive). */
export function formatA1(sheetTitle: string, startRow: number, startCol: number, endRow: number, endCol: number) {
  return `${quoteSheet(sheetTitle)}!${columnName(startCol)}${startRow + 1}:${columnName(endCol - 1)}${endRow}`;
}
