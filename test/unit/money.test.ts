import { expect } from "chai";
import fc from "fast-check";
import { CURRENCY_CODES, currencyExponent, isKnownCurrency } from "../../src/money/currencies.js";
import { formatMinor, MoneyError, parseAmount, sumMinor, toMinorBigInt, toMoney } from "../../src/money/amount.js";
import { amountLimitMinor } from "../../src/money/ceilings.js";

function expectMoneyError(fn: () => unknown, field: string, fragment: string): MoneyError {
  let caught: unknown;
  try {
    fn();
  } catch (e) {
    caught = e;
  }
  expect(caught, "expected a MoneyError").to.be.instanceOf(MoneyError);
  const err = caught as MoneyError;
  expect(err.field).to.equal(field);
  expect(err.message.startsWith(`${field}: `), err.message).to.equal(true);
  expect(err.message).to.contain(fragment);
  expect(err.expected).to.be.a("string").and.not.equal("");
  expect(err.errorName).to.equal("invalid_params");
  return err;
}

describe("money: currencies", () => {
  const exponents: Array<[string, number]> = [
    ["USD", 2],
    ["EUR", 2],
    ["GBP", 2],
    ["HUF", 2],
    ["MGA", 2],
    ["JPY", 0],
    ["KRW", 0],
    ["VND", 0],
    ["ISK", 0],
    ["CLP", 0],
    ["XAF", 0],
    ["XOF", 0],
    ["UGX", 0],
    ["UYI", 0],
    ["KWD", 3],
    ["BHD", 3],
    ["JOD", 3],
    ["OMR", 3],
    ["TND", 3],
    ["LYD", 3],
    ["IQD", 3],
    ["CLF", 4],
    ["UYW", 4],
    ["XCG", 2],
    ["ZWG", 2],
    ["SLE", 2],
    ["VED", 2],
  ];
  for (const [code, exp] of exponents) {
    it(`${code} has exponent ${exp}`, () => {
      expect(isKnownCurrency(code)).to.equal(true);
      expect(currencyExponent(code)).to.equal(exp);
    });
  }

  for (const code of ["usd", "XAU", "XDR", "XXX", "XTS", "HRK", "ZWL", "SLL", "ABC", "", "USDX"]) {
    it(`${JSON.stringify(code)} is not a known currency and currencyExponent throws`, () => {
      expect(isKnownCurrency(code)).to.equal(false);
      expect(() => currencyExponent(code)).to.throw(RangeError, "unknown ISO 4217 currency code");
    });
  }

  it("isKnownCurrency rejects non-strings and prototype keys", () => {
    expect(isKnownCurrency(840)).to.equal(false);
    expect(isKnownCurrency(null)).to.equal(false);
    expect(isKnownCurrency("toString")).to.equal(false);
    expect(isKnownCurrency("__proto__")).to.equal(false);
  });

  it("lists every active code once, sorted, with exponents 0, 2, 3 or 4", () => {
    expect(CURRENCY_CODES.length).to.equal(165);
    expect(new Set(CURRENCY_CODES).size).to.equal(CURRENCY_CODES.length);
    expect([...CURRENCY_CODES].sort()).to.deep.equal(CURRENCY_CODES);
    for (const code of CURRENCY_CODES) {
      expect(code).to.match(/^[A-Z]{3}$/);
      expect([0, 2, 3, 4]).to.include(currencyExponent(code));
    }
  });
});

describe("money: parseAmount accepts", () => {
  const ok: Array<[string, string, bigint]> = [
    ["12.50", "USD", 1250n],
    ["12.5", "USD", 1250n],
    ["12", "USD", 1200n],
    ["0.10", "USD", 10n],
    ["0.01", "USD", 1n],
    ["1", "USD", 100n],
    ["999999999999.99", "USD", 99999999999999n],
    ["999999999999.9999", "CLF", 9999999999999999n],
    ["1000", "JPY", 1000n],
    ["1.234", "KWD", 1234n],
    ["1.2", "KWD", 1200n],
    ["0.001", "BHD", 1n],
    ["1.2345", "CLF", 12345n],
    ["7", "UYW", 70000n],
  ];
  for (const [input, currency, minor] of ok) {
    it(`${JSON.stringify(input)} ${currency} -> ${minor}`, () => {
      expect(parseAmount(input, currency, "amount")).to.equal(minor);
    });
  }

  it("accepts a sign with { signed: true }", () => {
    expect(parseAmount("-12.50", "USD", "opening_balance", { signed: true })).to.equal(-1250n);
    expect(parseAmount("12.50", "USD", "opening_balance", { signed: true })).to.equal(1250n);
  });

  it("accepts zero with { allowZero: true }", () => {
    expect(parseAmount("0", "USD", "opening_balance", { allowZero: true })).to.equal(0n);
    expect(parseAmount("0.00", "USD", "opening_balance", { allowZero: true })).to.equal(0n);
    expect(parseAmount("-0.00", "USD", "opening_balance", { allowZero: true, signed: true })).to.equal(0n);
  });
});

describe("money: parseAmount refuses, naming the field", () => {
  const bad: Array<[unknown, string, string, string]> = [
    // input, currency, field, message fragment
    [12.5, "USD", "amount", "not a JSON number"],
    [1250, "USD", "amount", "not a JSON number"],
    [12n, "USD", "amount", "not a JSON number"],
    [null, "USD", "amount", "got null"],
    [undefined, "USD", "amount", "got undefined"],
    [{ value: "1" }, "USD", "amount", "got object"],
    [["1"], "USD", "amount", "got an array"],
    ["", "USD", "amount", "must not be empty"],
    [" 12.50", "USD", "amount", "must not contain spaces"],
    ["12.50 ", "USD", "amount", "must not contain spaces"],
    ["1e3", "USD", "amount", "exponent notation"],
    ["1.5E2", "USD", "amount", "exponent notation"],
    ["+12", "USD", "amount", '"+" sign'],
    ["-12.50", "USD", "amount", "without a sign"],
    ["012", "USD", "amount", "leading zeros"],
    ["00.50", "USD", "amount", "leading zeros"],
    [".5", "USD", "amount", "digit before the decimal point"],
    ["12.", "USD", "amount", "must not end with a decimal point"],
    ["1,000.00", "USD", "amount", "decimal separator"],
    ["12,50", "EUR", "amount", "decimal separator"],
    ["0x10", "USD", "amount", "not a plain decimal number"],
    ["NaN", "USD", "amount", "not a plain decimal number"],
    ["Infinity", "USD", "amount", "not a plain decimal number"],
    ["١٢", "USD", "amount", "not a plain decimal number"],
    ["12.345", "USD", "amount", 'USD allows at most 2 decimal places, got "12.345"'],
    ["12.500", "USD", "amount", "USD allows at most 2 decimal places"],
    ["1000.5", "JPY", "amount", 'JPY has no decimal places, got "1000.5"'],
    ["1000.0", "JPY", "amount", "JPY has no decimal places"],
    ["1.2345", "KWD", "amount", "KWD allows at most 3 decimal places"],
    ["0", "USD", "amount", "greater than zero"],
    ["0.00", "USD", "min_amount", "greater than zero"],
    ["1000000000000.00", "USD", "amount", "too large"],
    ["1000000000000", "JPY", "amount", "too large"],
    ["10000000000000000.00", "USD", "amount", "too large"],
    ["1".repeat(41), "USD", "amount", "too long"],
  ];
  for (const [input, currency, field, fragment] of bad) {
    it(`${typeof input === "string" ? JSON.stringify(input) : String(input)} ${currency} -> ${fragment}`, () => {
      expectMoneyError(() => parseAmount(input, currency, field), field, fragment);
    });
  }

  it("uses the field name it is given", () => {
    const err = expectMoneyError(() => parseAmount("12.345", "USD", "target_amount"), "target_amount", "USD allows at most 2 decimal places");
    expect(err.message).to.equal('target_amount: USD allows at most 2 decimal places, got "12.345"');
    expect(err.expected).to.contain("at most 2 decimal places");
  });

  it("refuses an unknown currency under the currency field", () => {
    expectMoneyError(() => parseAmount("12.50", "usd", "amount"), "currency", 'unknown currency "usd"');
    expectMoneyError(() => parseAmount("12.50", "XAU", "amount", { currencyField: "wallet.currency" }), "wallet.currency", "unknown currency");
  });

  it("refuses zero even when signed, unless allowZero", () => {
    expectMoneyError(() => parseAmount("-0", "USD", "amount", { signed: true }), "amount", "greater than zero");
  });
});

describe("money: formatMinor", () => {
  const cases: Array<[bigint, string, string]> = [
    [1250n, "USD", "12.50"],
    [-1250n, "USD", "-12.50"],
    [10n, "USD", "0.10"],
    [-5n, "USD", "-0.05"],
    [0n, "USD", "0.00"],
    [1000n, "JPY", "1000"],
    [-1000n, "JPY", "-1000"],
    [0n, "JPY", "0"],
    [1234n, "KWD", "1.234"],
    [1n, "KWD", "0.001"],
    [12345n, "CLF", "1.2345"],
    [9007199254740993n, "USD", "90071992547409.93"],
    [123456789012345678901234567890n, "USD", "1234567890123456789012345678.90"],
    [-(2n ** 63n), "EUR", "-92233720368547758.08"],
  ];
  for (const [minor, currency, text] of cases) {
    it(`${minor} ${currency} -> ${text}`, () => {
      expect(formatMinor(minor, currency)).to.equal(text);
    });
  }

  it("throws for an unknown currency", () => {
    expect(() => formatMinor(1n, "XYZ")).to.throw(RangeError);
  });
});

describe("money: toMoney, toMinorBigInt and sumMinor", () => {
  it("builds the amount object from bigint, number and string", () => {
    expect(toMoney(-1250n, "USD")).to.deep.equal({ value: "-12.50", currency: "USD", minor: -1250 });
    expect(toMoney(-1250, "USD")).to.deep.equal({ value: "-12.50", currency: "USD", minor: -1250 });
    expect(toMoney("-1250", "USD")).to.deep.equal({ value: "-12.50", currency: "USD", minor: -1250 });
    expect(toMoney("1000", "JPY")).to.deep.equal({ value: "1000", currency: "JPY", minor: 1000 });
    expect(toMoney(1234, "KWD")).to.deep.equal({ value: "1.234", currency: "KWD", minor: 1234 });
    expect(toMoney(0, "USD")).to.deep.equal({ value: "0.00", currency: "USD", minor: 0 });
    expect(Object.is(toMoney(-0, "USD").minor, 0)).to.equal(true);
  });

  it("accepts pg numeric strings with a zero scale", () => {
    expect(toMinorBigInt("1250.00")).to.equal(1250n);
    expect(toMinorBigInt("-0")).to.equal(0n);
  });

  it("keeps value exact beyond 2^53 while minor is the nearest double", () => {
    const m = toMoney("9007199254740993", "USD");
    expect(m.value).to.equal("90071992547409.93");
    expect(m.minor).to.equal(9007199254740992); // documented: minor is exact only within ±(2^53 − 1)
    expect(toMoney(9007199254740993n, "USD").value).to.equal("90071992547409.93");
  });

  it("refuses lossy or non-integral driver values", () => {
    // eslint-disable-next-line no-loss-of-precision -- the point: a driver's number is already rounded when we see it
    expect(() => toMinorBigInt(9007199254740993)).to.throw(RangeError);
    expect(() => toMinorBigInt(12.5)).to.throw(RangeError);
    expect(() => toMinorBigInt(Number.NaN)).to.throw(RangeError);
    expect(() => toMinorBigInt("12.5")).to.throw(RangeError);
    expect(() => toMinorBigInt("1e3")).to.throw(RangeError);
    expect(() => toMinorBigInt("")).to.throw(RangeError);
    expect(() => toMinorBigInt(null as unknown as string)).to.throw(TypeError);
  });

  it("0.10 + 0.20 = 0.30 exactly (floats give 0.30000000000000004)", () => {
    expect(0.1 + 0.2).to.not.equal(0.3); // the trap this module exists to avoid
    const total = sumMinor([parseAmount("0.10", "USD", "amount"), parseAmount("0.20", "USD", "amount")]);
    expect(total).to.equal(30n);
    expect(formatMinor(total, "USD")).to.equal("0.30");
  });

  it("ten times 0.10 is exactly 1.00", () => {
    expect(formatMinor(sumMinor(Array.from({ length: 10 }, () => "10")), "USD")).to.equal("1.00");
  });

  it("900719925474.0993 + 0.0001 CLF (past 2^53 minor units) round-trips exactly in value", () => {
    const a = parseAmount("900719925474.0993", "CLF", "amount");
    const b = parseAmount("0.0001", "CLF", "amount");
    const total = sumMinor([a, b]);
    expect(total).to.equal(9007199254740994n);
    expect(toMoney(total, "CLF").value).to.equal("900719925474.0994");
    expect(formatMinor(a, "CLF")).to.equal("900719925474.0993");
  });

  it("sums a mix of driver types exactly, including negatives", () => {
    // pg strings, better-sqlite3 numbers and BigInts, mixed
    expect(sumMinor(["9007199254740993", 7, -10n, "-1250"])).to.equal(9007199254739740n);
    expect(sumMinor([])).to.equal(0n);
    expect(sumMinor(new Set<string>(["1", "2"]))).to.equal(3n);
  });
});

describe("money: properties (fast-check)", () => {
  const currencies = ["USD", "JPY", "KWD", "CLF", "EUR", "VND", "BHD", "UYW"];

  const intPart = fc.oneof(
    fc.constant("0"),
    fc.tuple(fc.integer({ min: 1, max: 9 }), fc.stringMatching(/^[0-9]{0,13}$/)).map(([d, rest]) => `${d}${rest}`),
  );
  const fracParts = [0, 1, 2, 3, 4].map((e) => (e === 0 ? fc.constant("") : fc.stringMatching(new RegExp(`^[0-9]{0,${e}}$`))));

  /** A valid positive decimal string for a currency, with its canonical form. */
  const validAmount = fc.oneof(
    ...currencies.map((currency) => {
      const exponent = currencyExponent(currency);
      return fc
        .tuple(intPart, fracParts[exponent] ?? fc.constant(""))
        .filter(([i, f]) => /[1-9]/.test(i + f))
        .map(([i, f]) => ({
          currency,
          input: f === "" ? i : `${i}.${f}`,
          canonical: exponent === 0 ? i : `${i}.${f.padEnd(exponent, "0")}`,
        }));
    }),
  );

  it("formatMinor(parseAmount(x)) is x in canonical form", () => {
    fc.assert(
      fc.property(validAmount, ({ currency, input, canonical }) => {
        const minor = parseAmount(input, currency, "amount");
        expect(minor > 0n).to.equal(true);
        expect(formatMinor(minor, currency)).to.equal(canonical);
        expect(parseAmount(canonical, currency, "amount")).to.equal(minor);
      }),
      { numRuns: 500 },
    );
  });

  it("parseAmount(formatMinor(m)) = m for any signed minor units below the amount ceiling", () => {
    fc.assert(
      fc.property(
        fc
          .constantFrom(...currencies)
          .chain((currency) => fc.tuple(fc.constant(currency), fc.bigInt({ min: -amountLimitMinor(currency) + 1n, max: amountLimitMinor(currency) - 1n }))),
        ([currency, m]) => {
          const text = formatMinor(m, currency);
          expect(parseAmount(text, currency, "amount", { signed: true, allowZero: true })).to.equal(m);
          expect(toMoney(m, currency).value).to.equal(text);
          expect(toMoney(m.toString(), currency).value).to.equal(text);
        },
      ),
      { numRuns: 500 },
    );
  });

  it("sums of parsed amounts equal the parse of the exact decimal sum", () => {
    fc.assert(
      fc.property(fc.array(fc.bigInt({ min: 1n, max: 10n ** 14n - 1n }), { minLength: 1, maxLength: 20 }), (minors) => {
        const texts = minors.map((m) => formatMinor(m, "USD"));
        const total = sumMinor(texts.map((t) => parseAmount(t, "USD", "amount")));
        expect(total).to.equal(minors.reduce((a, b) => a + b, 0n));
      }),
    );
  });

  it("never accepts a string with more decimals than the currency allows", () => {
    fc.assert(
      fc.property(fc.constantFrom(...currencies), fc.stringMatching(/^[1-9][0-9]{0,5}$/), fc.integer({ min: 1, max: 3 }), (currency, i, extra) => {
        const exponent = currencyExponent(currency);
        const input = `${i}.${"5".repeat(exponent + extra)}`;
        expect(() => parseAmount(input, currency, "amount")).to.throw(MoneyError);
      }),
    );
  });
});
