/** fast-xml-parser set up for statements: values stay text (an id "00012" or an amount is never a number), namespace prefixes go. */
import { XMLParser, XMLValidator } from "fast-xml-parser";
import { invalidParams } from "../errors.js";
import { MAX_DEPTH, type Node } from "./tree.js";

const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: "@",
  removeNSPrefix: true,
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: true,
  processEntities: true,
  ignoreDeclaration: true,
  ignorePiTags: true,
  maxNestedTags: MAX_DEPTH,
});

export function parseXml(text: string, what: string): Node {
  const valid = XMLValidator.validate(text);
  if (valid !== true)
    throw invalidParams(
      "statement",
      `well-formed ${what} XML`,
      `statement: the ${what} XML is not well-formed at line ${valid.err.line}: ${valid.err.msg}. Send the file exactly as the bank exported it.`,
    );
  try {
    return parser.parse(text) as Node;
  } catch (err) {
    // fast-xml-parser says "Maximum nested tags exceeded" (its message, not a code) past maxNestedTags.
    if (err instanceof Error && /nested tags/i.test(err.message))
      throw invalidParams(
        "statement",
        `${what} XML nested at most ${MAX_DEPTH} elements deep`,
        `statement: the ${what} XML nests elements more than ${MAX_DEPTH} deep (a bank's statement nests about 15). Send the file exactly as the bank exported it.`,
      );
    // The validator passes any DOCTYPE; the parser refuses external, parameter and too many entities.
    throw invalidParams(
      "statement",
      `${what} XML without a DOCTYPE`,
      `statement: the ${what} XML declares a DOCTYPE with entities that are not accepted. Send the file exactly as the bank exported it.`,
    );
  }
}
