/** Formula injection in CSV (OWASP "CSV Injection"): a spreadsheet opening an export runs a cell that starts with
 * `=`, `+`, `-`, `@`, a tab or a carriage return as a formula (`=HYPERLINK(...)`, `+cmd|...`). The export writes
 * such a cell with a leading `'`, which spreadsheets read as "this is text" and do not show.
 *
 * - A cell that is exactly a decimal number (`-5`, `-1.25`, `-1e-7`) stays as it is, in any column: spreadsheets
 *   read it as a number, never as a formula, so negative numbers keep working as numbers.
 * - A cell that already starts with quotes before such a character (`'=x`) gets one more, so the guard can be
 *   told apart from data: the import removes exactly one leading `'` from a cell of the form `'...'<trigger>...`,
 *   and an export imports back unchanged. */

const TRIGGER = /^'*[=+\-@\t\r]/;
const GUARDED = /^'+[=+\-@\t\r]/;
const PLAIN_NUMBER = /^-?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/;

/** The cell as the export writes it. */
export function guardCsvCell(text: string): string {
  return TRIGGER.test(text) && !PLAIN_NUMBER.test(text) ? `'${text}` : text;
}

/** The cell as the export had it before guardCsvCell. */
export function unguardCsvCell(text: string): string {
  return GUARDED.test(text) ? text.slice(1) : text;
}
