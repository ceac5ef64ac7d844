/** fast-xml-parser set up for statements: values stay text (an id "00012" or an amount is never a number), namespace prefixes go. */
import { XMLParser, XMLValidator } from "fast-xml-parser";
import { invalidParams } from "../errors.js";
import type { Node } from "./tree.js";

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
  } catch {
    // The validator passes any DOCTYPE; the parser refuses external, parameter and too many entities.
    throw invalidParams(
      "statement",
      `${what} XML without a DOCTYPE`,
      `statement: the ${what} XML declares a DOCTYPE with entities that are not accepted. Send the file exactly as the bank exported it.`,
    );
  }
}
