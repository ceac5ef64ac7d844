// The help/FAQ corpus: markdown files in kb/, one entry per file.
//
// Each file is named `<slug>.md` (lowercase letters, digits and single hyphens) and starts
// with a front-matter block:
//
//   ---
//   title: How do I revoke an MCP token?
//   tags: [tokens, security]
//   ---
//   Body in markdown.
//
// The entry id is `kb_<slug>`. Entry text is data shown to a language model, never instructions
// to it; this module only parses it.

import { readdir, readFile } from "node:fs/promises";
import path from "node:path";

export interface KbEntry {
  id: string;
  slug: string;
  title: string;
  tags: string[];
  body: string;
}

const SLUG_RE = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;
const TAG_RE = /^[a-z0-9]+(?:[-_:][a-z0-9]+)*$/;
const KNOWN_KEYS = new Set(["title", "tags"]);

/** Parses one entry. `fileName` is the file's base name (`revoke-token.md`); errors name it. */
export function parseEntry(fileName: string, text: string): KbEntry {
  const fail = (why: string): Error => new Error(`kb entry ${fileName}: ${why}`);

  const base = path.basename(fileName);
  if (!base.endsWith(".md")) throw fail("the file name must end in .md");
  const slug = base.slice(0, -3);
  if (!SLUG_RE.test(slug)) throw fail("the file name must be a lowercase-hyphenated slug, e.g. revoke-token.md");

  const lines = text.replace(/^\uFEFF/, "").split(/\r?\n/);
  if (lines[0]?.trim() !== "---") throw fail("missing front matter: the file must start with a line '---'");
  const end = lines.findIndex((line, i) => i > 0 && line.trim() === "---");
  if (end < 0) throw fail("front matter is not closed by a line '---'");

  let title: string | undefined;
  let tags: string[] = [];
  const seen = new Set<string>();
  for (let i = 1; i < end; i++) {
    const line = lines[i] ?? "";
    if (line.trim() === "" || line.trimStart().startsWith("#")) continue;
    const m = /^([A-Za-z_][A-Za-z0-9_-]*)\s*:(.*)$/.exec(line);
    if (!m || m[1] === undefined || m[2] === undefined) throw fail(`front matter line ${i + 1} is not 'key: value'`);
    const key = m[1].toLowerCase();
    const raw = m[2].trim();
    if (!KNOWN_KEYS.has(key)) throw fail(`unknown front-matter key '${key}' (known: title, tags)`);
    if (seen.has(key)) throw fail(`front-matter key '${key}' appears twice`);
    seen.add(key);
    if (key === "title") title = unquote(raw);
    else tags = parseTags(raw, fail);
  }

  if (title === undefined || title === "") throw fail("front matter has no title");
  const body = lines
    .slice(end + 1)
    .join("\n")
    .trim();
  if (body === "") throw fail("the body is empty");

  return { id: `kb_${slug}`, slug, title, tags, body };
}

function unquote(value: string): string {
  if (value.length >= 2) {
    const q = value[0];
    if ((q === '"' || q === "'") && value[value.length - 1] === q) return value.slice(1, -1).trim();
  }
  return value;
}

function parseTags(raw: string, fail: (why: string) => Error): string[] {
  if (raw === "") return [];
  if (!raw.startsWith("[") || !raw.endsWith("]")) throw fail("tags must be a list such as [tokens, security]");
  const inner = raw.slice(1, -1).trim();
  if (inner === "") return [];
  const tags: string[] = [];
  for (const part of inner.split(",")) {
    const tag = unquote(part.trim()).toLowerCase();
    if (!TAG_RE.test(tag)) throw fail(`invalid tag '${part.trim()}' (lowercase words, digits, '-', '_' or ':')`);
    if (!tags.includes(tag)) tags.push(tag);
  }
  return tags;
}

/** Reads every `*.md` file of `folder`, sorted by file name, and parses it. */
export async function loadCorpus(folder: string): Promise<KbEntry[]> {
  const dirents = await readdir(folder, { withFileTypes: true });
  const names = dirents
    .filter((d) => d.isFile() && d.name.endsWith(".md"))
    .map((d) => d.name)
    .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const entries: KbEntry[] = [];
  for (const name of names) {
    const text = await readFile(path.join(folder, name), "utf8");
    entries.push(parseEntry(name, text));
  }
  return entries;
}
