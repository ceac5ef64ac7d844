/**
 * OFX 1.x is SGML: tags may stay unclosed (`<TRNAMT>-12.50` ends where the next tag begins), aggregates
 * are closed (`</STMTTRN>`). No npm parser for it is both kept and small, so this is our own, and it is
 * fuzzed (test/statements/fuzz.test.ts). One pass over the tags with a stack: a tag followed by text is a
 * leaf and closes itself; a closing tag pops up to its opening tag (and is ignored when nothing open has
 * that name, as after a leaf written `<NAME>text</NAME>`). SGML entities of OFX are decoded.
 */
import type { Node } from "./tree.js";

const ENTITIES: Record<string, string> = { "&lt;": "<", "&gt;": ">", "&amp;": "&", "&quot;": '"', "&apos;": "'", "&nbsp;": " " };
const decode = (s: string): string => s.replace(/&(lt|gt|amp|quot|apos|nbsp);/g, (e) => ENTITIES[e]!);

type Element = { [tag: string]: Node | Node[] };

function add(parent: Element, tag: string, value: Node): void {
  const existing = parent[tag];
  if (existing === undefined) parent[tag] = value;
  else if (Array.isArray(existing)) existing.push(value);
  else parent[tag] = [existing, value];
}

/** Parses the body of an OFX 1.x file (from `<OFX>` on) into an element tree. */
export function parseSgml(body: string): Element {
  const root: Element = {};
  const stack: { tag: string; element: Element }[] = [{ tag: "", element: root }];
  const tagPattern = /<(\/?)([A-Za-z0-9_.]+)[^>]*>([^<]*)/g;
  for (let m = tagPattern.exec(body); m !== null; m = tagPattern.exec(body)) {
    const [, closing, rawTag, rawText] = m;
    const tag = rawTag!.toUpperCase();
    const value = decode(rawText!).trim();
    if (closing) {
      let at = stack.length - 1;
      while (at > 0 && stack[at]!.tag !== tag) at--;
      if (at > 0) stack.length = at;
      continue;
    }
    const parent = stack[stack.length - 1]!.element;
    if (value !== "") add(parent, tag, value);
    else {
      const element: Element = {};
      add(parent, tag, element);
      stack.push({ tag, element });
    }
  }
  return root;
}
