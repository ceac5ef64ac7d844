/**
 * The element tree the OFX and CAMT readers walk, whichever parser built it: an element is a record of
 * child elements (repeated children become arrays), a leaf is its text. fast-xml-parser builds it from XML;
 * ofx-sgml.ts builds the same shape from OFX 1.x SGML.
 */
export type Node = string | { [tag: string]: Node | Node[] };

/**
 * How deep a statement's elements may nest. A bank's OFX nests about 10 deep and a CAMT.053 about 15; the
 * walks below recurse once per level, so a hostile 10,000-deep file would overflow the stack. Both parsers
 * refuse deeper files with their own message (docs/decisions.md#statement-nesting-depth).
 */
export const MAX_DEPTH = 100;

export function child(node: Node | undefined, ...path: string[]): Node | undefined {
  let at: Node | undefined = node;
  for (const tag of path) {
    if (at === undefined || typeof at === "string") return undefined;
    const next: Node | Node[] | undefined = at[tag];
    at = Array.isArray(next) ? next[0] : next;
  }
  return at;
}

export function children(node: Node | undefined, tag: string): Node[] {
  if (node === undefined || typeof node === "string") return [];
  const next = node[tag];
  return next === undefined ? [] : Array.isArray(next) ? next : [next];
}

/** The text of a leaf (an element's "#text" when it also has attributes), trimmed; null when absent. */
export function text(node: Node | undefined, ...path: string[]): string | null {
  const at = child(node, ...path);
  if (at === undefined) return null;
  if (typeof at === "string") return at.trim() === "" ? null : at.trim();
  const inner = at["#text"];
  return typeof inner === "string" && inner.trim() !== "" ? inner.trim() : null;
}

/** Every element with this tag anywhere below node, in document order. */
export function findAll(node: Node | undefined, tag: string, out: Node[] = []): Node[] {
  if (node === undefined || typeof node === "string") return out;
  for (const [key, value] of Object.entries(node)) {
    for (const item of Array.isArray(value) ? value : [value]) {
      if (key === tag) out.push(item);
      else findAll(item, tag, out);
    }
  }
  return out;
}
