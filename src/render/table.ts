import { PLAIN, visibleWidth, type Style } from './style.js';

/** One column of a table: a header and how to get (and optionally colour) a cell. */
export interface Column<T> {
  header: string;
  value(row: T): string;
  color?(cell: string, row: T, style: Style): string;
}

const GAP = '  ';

/** Renders rows as aligned columns under an upper-case header; the last column is not padded. */
export function renderTable<T>(rows: readonly T[], columns: readonly Column<T>[], style: Style = PLAIN): string {
  const cells = rows.map((row) => columns.map((column) => column.value(row)));
  const widths = columns.map((column, i) =>
    Math.max(visibleWidth(column.header), ...cells.map((line) => visibleWidth(line[i]))));
  const pad = (text: string, i: number) =>
    i === columns.length - 1 ? text : text + ' '.repeat(widths[i] - visibleWidth(text));
  const header = columns.map((column, i) => style.bold(pad(column.header.toUpperCase(), i))).join(GAP);
  const body = cells.map((line, r) =>
    line.map((cell, i) => {
      const colour = columns[i].color;
      return colour ? colour(pad(cell, i), rows[r], style) : pad(cell, i);
    }).join(GAP).trimEnd());
  return [header.trimEnd(), ...body].join('\n') + '\n';
}

/** Renders label/value pairs as `label:  value` lines with the values aligned. */
export function renderFields(fields: ReadonlyArray<readonly [string, string]>, style: Style = PLAIN): string {
  const width = Math.max(0, ...fields.map(([label]) => label.length + 1));
  return fields.map(([label, value]) => `${style.bold((label + ':').padEnd(width))}  ${value}`.trimEnd()).join('\n') + '\n';
}
