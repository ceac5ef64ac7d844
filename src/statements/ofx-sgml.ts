/**
 * OFX 1.x is SGML: tags may stay unclosed (`<TRNAMT>-12.50` ends where the next tag begins), aggregates
 * are closed (`</STMTTRN>`). No npm parser for it is both kept and small, so this is our own, and it is
 * fuzzed (test/statements/fuzz.test.ts). One pass over the tags with a stack: a tag followed by text is a
 * leaf and closes itself; a closing tag pops up to its opening tag (and is ignored when nothing open has
 * that name, as after a leaf written `<NAME>text</NAME>`). SGML entities of OFX are decoded.
 *
 * Linear in the body whatever it holds (issue 41): the tags are found with indexOf, never a backtracking
 * pattern (`<A<A<A…` without a `>` made the old one quadratic); a closing tag finds its opening one by a
 * count per name, not a walk down the stack; and aggregates nest at most MAX_DEPTH deep, so that the tree
 * walks after it cannot overflow the call stack (docs/security.md#bounded-work).
 */
import { invalidParams } from "../errors.js";
import { MAX_DEPTH } from "./tree.js";
import type { Node } from "./tree.js";

const ENTITIES: Record<string, string> = { "&lt;": "<", "&gt;": ">", "&amp;": "&", "&quot;": '"', "&apos;": "'", "&nbsp;": " " };
const decode = (s: string): string => s.replace(/&(?:lt|gt|amp|quot|apos|nbsp);/g, (e) => ENTITIES[e]!);

type Element = { [tag: string]: Node | Node[] };

function add(parent: Element, tag: string, value: Node): void {
  const existing = parent[tag];
  if (existing === undefined) parent[tag] = value;
  else if (Array.isArray(existing)) existing.push(value);
  else parent[tag] = [existing, value];
}

/** A tag name's characters: A-Z a-z 0-9 _ . */
function isNameChar(code: number): boolean {
  return (code >= 48 && code <= 57) || (code >= 65 && code <= 90) || (code >= 97 && code <= 122) || code === 95 || code === 46;
}

/** Parses the body of an OFX 1.x file (from `<OFX>` on) into an element tree. */
export function parseSgml(body: string): Element {
  const root: Element = {};
  const stack: { tag: string; element: Element }[] = [{ tag: "", element: root }];
  const open = new Map<string, number>();
  let at = body.indexOf("<");
  while (at >= 0) {
    const closing = body.charCodeAt(at + 1) === 47; // "/"
    const nameStart = at + (closing ? 2 : 1);
    let nameEnd = nameStart;
    while (nameEnd < body.length && isNameChar(body.charCodeAt(nameEnd))) nameEnd++;
    if (nameEnd === nameStart) {
      // A "<" that starts no tag is skipped, as is the text after it up to the next "<".
      at = body.indexOf("<", at + 1);
      continue;
    }
    const end = body.indexOf(">", nameEnd);
    if (end < 0) break; // no ">" after this point: no further tag can end
    const next = body.indexOf("<", end + 1);
    const tag = body.slice(nameStart, nameEnd).toUpperCase();
    at = next;
    if (closing) {
      if ((open.get(tag) ?? 0) === 0) continue;
      for (let popped = stack.pop()!; popped.tag !== tag; popped = stack.pop()!) open.set(popped.tag, open.get(popped.tag)! - 1);
      open.set(tag, open.get(tag)! - 1);
      continue;
    }
    const value = decode(body.slice(end + 1, next < 0 ? body.length : next)).trim();
    const parent = stack[stack.length - 1]!.element;
    if (value !== "") add(parent, tag, value);
    else {
      if (stack.length > MAX_DEPTH)
        throw invalidParams(
          "statement",
          `an OFX file nested at most ${MAX_DEPTH} elements deep`,
          `statement: this OFX file nests elements more than ${MAX_DEPTH} deep (a bank's statement nests about 10). Send the file exactly as the bank exported it.`,
        );
      const element: Element = {};
      add(parent, tag, element);
      stack.push({ tag, element });
      open.set(tag, (open.get(tag) ?? 0) + 1);
    }
  }
  return root;
}
