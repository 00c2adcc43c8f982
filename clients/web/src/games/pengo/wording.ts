/**
 * The rules compendium's text as a player reads it: the server's compendium (`GET /api/rules`) is
 * written for maintainers and cites the source files and the arcade program's Z80 addresses it comes
 * from; the rules page leaves those out (the maintainers' copy is `floe rules`).
 */

/** A source file's name (rules/versus/tables.py, DESIGN.md's). */
const FILE_NAME = /[\w./-]+\.(?:py|md)\b(?:'s)?/g;
/** A Z80 address of the arcade program, a range or a table of them ($344B, $0081–$0093, table $0D9D). */
const ADDRESS = /(?:table\s+)?\$[0-9A-F]{4}(?:[–-]\$[0-9A-F]{4})?(?: low byte)?/g;
/** A reference to the arcade notes' sections (PENGO-RULES §0). */
const NOTES_SECTION = /PENGO-RULES\s+§[\d.]+/g;
/** A class name in parentheses: "(AttackTable)". */
const CLASS_NAME = /\s*\([A-Z][a-z]+(?:[A-Z][a-z]+)+\)/g;

/** `text` without source file names and Z80 addresses, the punctuation they leave tidied. */
export function playerText(text: string): string {
  let out = text.replace(FILE_NAME, "").replace(ADDRESS, "").replace(NOTES_SECTION, "").replace(CLASS_NAME, "");
  for (let pass = 0; pass < 3; pass += 1) {
    out = out
      .replace(/\(\s*[,;/:–-]*\s*\)/g, "")
      .replace(/\(\s*[,;/:]?\s*/g, "(")
      .replace(/\s*[,;/]\s*\)/g, ")")
      .replace(/^\s*[,;/:–-]+\s*/, "")
      .replace(/\s*\/\s*:/g, ":")
      .replace(/,\s*([,:;])/g, "$1")
      .replace(/\s+([,.;:)])/g, "$1")
      .replace(/\s{2,}/g, " ");
  }
  return out.trim();
}
