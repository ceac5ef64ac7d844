/**
 * XML statements (CAMT, OFX 2.x) into the element tree of tree.ts: values stay text (an id "00012" or an
 * amount is never a number), namespace prefixes go, attributes are "@name", an element's text beside
 * attributes or children is "#text", repeated children become arrays.
 *
 * fast-xml-parser's validator checks that the text is well-formed (and names the line when it is not);
 * htmlparser2's tokenizer, in XML mode, then builds the tree in one pass. fast-xml-parser's own parser
 * built the same tree, but took 1.0–1.3 s of a 5,000-entry CAMT.053 preview (1.6 MB; issue 37's bound is
 * 2 s for the whole call): it keeps a path string per element and an ordered tree that it then converts.
 * htmlparser2 is the most used streaming parser on npm and the fastest we measured; it expands only XML's
 * own and numeric entities and never a DOCTYPE's, and a DOCTYPE that declares entities is refused here,
 * as fast-xml-parser refused external ones (docs/performance.md, "Statement previews").
 */
import { XMLValidator } from "fast-xml-parser";
import { Parser } from "htmlparser2";
import { invalidParams } from "../errors.js";
import { MAX_DEPTH, type Node } from "./tree.js";

type Element = { [tag: string]: Node | Node[] };

interface Open {
  name: string;
  node: Element;
  text: string;
  /** Has a child element or an attribute: then it is an object, else its text. */
  structured: boolean;
}

/** A name without its namespace prefix ("ns2:Ntry" is "Ntry"). */
const local = (name: string): string => {
  const colon = name.indexOf(":");
  return colon < 0 ? name : name.slice(colon + 1);
};

const doctypeRefused = (what: string) =>
  invalidParams(
    "statement",
    `${what} XML without a DOCTYPE`,
    `statement: the ${what} XML declares a DOCTYPE with entities that are not accepted. Send the file exactly as the bank exported it.`,
  );

const tooDeep = (what: string) =>
  invalidParams(
    "statement",
    `${what} XML nested at most ${MAX_DEPTH} elements deep`,
    `statement: the ${what} XML nests elements more than ${MAX_DEPTH} deep (a bank's statement nests about 15). Send the file exactly as the bank exported it.`,
  );

/** Adds a child under its parent: a second child of the same name makes an array (null-prototype objects: a tag named __proto__ is a tag). */
function add(parent: Element, name: string, value: Node): void {
  const found = parent[name];
  if (found === undefined) parent[name] = value;
  else if (Array.isArray(found)) found.push(value);
  else parent[name] = [found, value];
}

export function parseXml(text: string, what: string): Node {
  const valid = XMLValidator.validate(text);
  if (valid !== true)
    throw invalidParams(
      "statement",
      `well-formed ${what} XML`,
      `statement: the ${what} XML is not well-formed at line ${valid.err.line}: ${valid.err.msg}. Send the file exactly as the bank exported it.`,
    );
  // A DOCTYPE declaring entities (internal or external): no bank's statement has one.
  const doctype = text.search(/<!DOCTYPE/i);
  if (doctype >= 0 && /<!ENTITY/i.test(text.slice(doctype))) throw doctypeRefused(what);

  const root: Element = Object.create(null) as Element;
  const stack: Open[] = [{ name: "", node: root, text: "", structured: true }];
  let depthError = false;
  const parser = new Parser(
    {
      onopentag(name, attributes) {
        if (depthError) return;
        if (stack.length > MAX_DEPTH) {
          depthError = true;
          parser.pause();
          return;
        }
        const node = Object.create(null) as Element;
        let structured = false;
        for (const key of Object.keys(attributes)) {
          if (key === "xmlns" || key.startsWith("xmlns:")) continue;
          node[`@${local(key)}`] = attributes[key]!;
          structured = true;
        }
        stack[stack.length - 1]!.structured = true;
        stack.push({ name: local(name), node, text: "", structured });
      },
      ontext(data) {
        if (!depthError) stack[stack.length - 1]!.text += data;
      },
      onclosetag() {
        if (depthError || stack.length === 1) return;
        const open = stack.pop()!;
        const value = open.text.trim();
        let node: Node;
        if (open.structured) {
          if (value !== "") open.node["#text"] = value;
          node = open.node;
        } else node = value;
        add(stack[stack.length - 1]!.node, open.name, node);
      },
    },
    { xmlMode: true, decodeEntities: true, recognizeCDATA: true },
  );
  parser.end(text);
  if (depthError) throw tooDeep(what);
  return root;
}
