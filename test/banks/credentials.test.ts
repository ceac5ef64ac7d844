/**
 * The Access URL's seal (src/banks/credentials.ts): AES-256-GCM under the current key, opened by any key
 * still held (a rotation), refused when the key is gone, the text altered, or the sealed text copied onto
 * another connection's row; and the bridge's words sanitised before anyone reads them.
 */
import { randomBytes } from "node:crypto";
import { expect } from "chai";
import { seal, sealedWithCurrent, unseal, UnsealError, type SealingKeys } from "../../src/banks/credentials.js";
import { sanitizeBridgeText } from "../../src/domain/banks/sanitize.js";

const keysOf = (current: Buffer, ...previous: Buffer[]): SealingKeys => {
  const id = (k: Buffer) => k.subarray(0, 6).toString("hex");
  return { current: { id: id(current), key: current }, byId: new Map([current, ...previous].map((k) => [id(k), k])) };
};

describe("bank credentials: the seal and its rotation", () => {
  const access = "https://user123:pass456@bridge.example/simplefin";

  it("seals without the clear text, opens it again, and only on its own row", () => {
    const keys = keysOf(randomBytes(32));
    const sealed = seal(keys, access, "row A");
    expect(sealed).to.not.include("pass456");
    expect(sealed).to.not.include("user123");
    expect(unseal(keys, sealed, "row A")).to.equal(access);
    expect(() => unseal(keys, sealed, "row B")).to.throw(UnsealError, /altered/);
  });

  it("a rotation: the old key still opens, new text is sealed under the new key, a removed key refuses", () => {
    const old = randomBytes(32);
    const sealedOld = seal(keysOf(old), access, "row");
    const rotated = keysOf(randomBytes(32), old);
    expect(unseal(rotated, sealedOld, "row")).to.equal(access);
    expect(sealedWithCurrent(rotated, sealedOld)).to.equal(false);
    const again = seal(rotated, access, "row");
    expect(sealedWithCurrent(rotated, again)).to.equal(true);
    expect(() => unseal(keysOf(randomBytes(32)), sealedOld, "row")).to.throw(UnsealError, /no longer has/);
  });

  it("an altered sealed text does not open", () => {
    const keys = keysOf(randomBytes(32));
    const parts = seal(keys, access, "row").split(".");
    parts[4] = `${parts[4]!.slice(0, -2)}AA`;
    expect(() => unseal(keys, parts.join("."), "row")).to.throw(UnsealError);
  });

  it("sanitises the bridge's words: no markup, links, credentials or control characters, cut short", () => {
    expect(sanitizeBridgeText("<script>x</script>Re-auth at http://a.example/?t=1 with me:pw@host\u0000 now")).to.equal(
      "x Re-auth at [link removed] with [credentials removed] now",
    );
    expect([...sanitizeBridgeText("é".repeat(500))]).to.have.length(200);
  });
});
