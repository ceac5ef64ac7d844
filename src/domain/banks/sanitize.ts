/**
 * The bridge's own error messages, as the protocol requires them shown: sanitised first. They are data
 * from a third party, never instructions: control characters and markup go, links and anything that
 * looks like a credential (user:password@) are replaced, and each is cut short.
 */
const MAX_CHARS = 200;
export const MAX_BRIDGE_ERRORS = 5;

export function sanitizeBridgeText(text: string): string {
  const clean = text
    .slice(0, 4 * MAX_CHARS)
    .normalize("NFC")
    // eslint-disable-next-line no-control-regex
    .replace(/[\u0000-\u001f\u007f-\u009f\u200b-\u200f\u202a-\u202e\u2066-\u2069]/g, " ")
    .replace(/<[^<>]*>/g, " ")
    .replace(/\b[a-z][a-z0-9+.-]*:\/\/\S+/gi, "[link removed]")
    .split(/\s+/)
    .map((word) => (word.includes("@") && word.indexOf(":") >= 0 && word.indexOf(":") < word.lastIndexOf("@") ? "[credentials removed]" : word))
    .join(" ")
    .trim();
  const chars = [...clean];
  return chars.length <= MAX_CHARS ? clean : `${chars.slice(0, MAX_CHARS - 1).join("")}…`;
}

/** Up to MAX_BRIDGE_ERRORS of the bridge's errors, sanitised, without empties and repeats. */
export const sanitizeBridgeErrors = (errors: readonly string[]): string[] =>
  [...new Set(errors.map(sanitizeBridgeText).filter((e) => e !== ""))].slice(0, MAX_BRIDGE_ERRORS);
