/**
 * A statement pasted into a chat rather than exported: the chat turns the bank's table into a markdown
 * table (cells between pipes, a |---| line under the header), collapses the tabs of a table copied from
 * the bank's web page into runs of spaces, or wraps the text in a code fence (```csv … ```). Both are given back as the delimited text they were, line for
 * line (the row numbers of the answer stay the pasted text's own), so the CSV reader sees its columns.
 */

const SEPARATOR = /^\|?\s*:?-{2,}:?\s*(\|\s*:?-{2,}:?\s*)*\|?$/;
/** A chat's code fence around what was pasted ("```", "```csv"): no line of the statement. */
const FENCE = /^```\w*$/;

/** The text with a markdown table's pipes and rule line, or space-aligned columns, made delimited; else unchanged. */
export function unpasted(text: string): string {
  const all = text.split(/\r?\n/);
  const fenced = all.some((l) => FENCE.test(l.trim()));
  const lines = fenced ? all.map((l) => (FENCE.test(l.trim()) ? "" : l)) : all;
  const filled = lines.filter((l) => l.trim() !== "");
  if (filled.length < 2) return text;
  const piped = filled.filter((l) => l.trim().startsWith("|")).length;
  // A markdown table: its rule line under the header, or (without one) pipes opening most lines.
  if (piped >= 2 && (filled.some((l) => SEPARATOR.test(l.trim()) && l.includes("|")) || piped >= filled.length * 0.8)) return fromMarkdown(lines);
  return fromSpaceAligned(lines, filled) ?? (fenced ? lines.join("\n") : text);
}

function fromMarkdown(lines: readonly string[]): string {
  return lines
    .map((line) => {
      const t = line.trim();
      if (SEPARATOR.test(t)) return "";
      if (!t.startsWith("|")) return line;
      return t.slice(1, t.endsWith("|") && t.length > 1 ? -1 : undefined);
    })
    .join("\n");
}

/** The commonest number of cells of the lines split so, and the share of lines that have it. */
function modeWidth(lines: readonly string[], split: (l: string) => number): { width: number; share: number } {
  const counts = new Map<number, number>();
  for (const l of lines) {
    const w = split(l);
    counts.set(w, (counts.get(w) ?? 0) + 1);
  }
  let width = 0;
  let most = 0;
  for (const [w, k] of counts) if (k > most || (k === most && w > width)) [width, most] = [w, k];
  return { width, share: most / lines.length };
}

/**
 * Columns aligned by runs of two or more spaces (tabs a chat collapsed): read so when every line splits
 * into the same three or more cells that way, more than any delimiter gives; two lines of the chat's own words
 * around it at most. A single space stays inside a cell ("1 234,56", "ICA Kvantum").
 */
function fromSpaceAligned(lines: readonly string[], filled: readonly string[]): string | null {
  if (filled.some((l) => l.includes("\t"))) return null;
  // The chat's own words above or below the table ("these are my movements") have no run of spaces: no line of it.
  const table = filled.filter((l) => / {2,}/.test(l.trim()));
  if (table.length < 2 || filled.length - table.length > 2) return null;
  const bySpaces = modeWidth(table, (l) => l.trim().split(/ {2,}/).length);
  if (bySpaces.width < 3 || bySpaces.share < 0.9) return null;
  for (const d of [",", ";", "|"]) {
    const byDelimiter = modeWidth(table, (l) => l.split(d).length);
    if (byDelimiter.share >= 0.9 && byDelimiter.width >= bySpaces.width) return null;
  }
  return lines.map((l) => (l.trim() === "" ? "" : l.trim().replace(/ {2,}/g, "\t"))).join("\n");
}
