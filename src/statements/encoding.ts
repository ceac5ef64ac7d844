/**
 * The statement reaches us as text already decoded by the caller. What can still be wrong: the file
 * declares an encoding we do not know (then its bytes may have been read wrongly), or the caller decoded it
 * wrongly and the text holds U+FFFD replacement characters. Both are refused naming the row, never guessed.
 */
import { invalidParams } from "../errors.js";

const KNOWN = new Set([
  "USASCII",
  "ASCII",
  "USASCII7",
  "UTF8",
  "UTF16",
  "UNICODE",
  "1252",
  "CP1252",
  "WINDOWS1252",
  "ISO88591",
  "88591",
  "LATIN1",
  "ISO885915",
  "NONE",
  "65001",
]);

const fold = (s: string) => s.toUpperCase().replace(/[^A-Z0-9]/g, "");

export function assertKnownEncoding(declared: string | null, where: string): void {
  if (declared === null || KNOWN.has(fold(declared))) return;
  throw invalidParams(
    "statement",
    "a statement in UTF-8, ASCII, Windows-1252 or ISO-8859-1",
    `statement: ${where} declares the encoding ${JSON.stringify(declared.slice(0, 30))}, which this server does not know. Convert the file to UTF-8 and send it again.`,
  );
}

export function assertDecoded(text: string): void {
  const at = text.indexOf("\uFFFD");
  if (at < 0) return;
  const row = text.slice(0, at).split("\n").length;
  throw invalidParams(
    "statement",
    "text decoded in the file's own encoding",
    `statement: line ${row} holds an undecodable character (U+FFFD): the file was read in the wrong encoding. Read it again as Windows-1252 or ISO-8859-1 (most bank exports) and send the text.`,
  );
}
