/**
 * The parse queue has a per-person share and a bound (issue 51: two kept workers were one unbounded queue,
 * and one person's six large statements made another's ordinary import wait about a minute). Counted:
 * a person's third statement while two are being read is refused at once with `unavailable` and a
 * retry time, another person's is read; past the queue's bound everyone's is refused likewise.
 */
import { expect } from "chai";
import { AppError } from "../../src/errors.js";
import { INLINE_CHARS, PER_OWNER, QUEUED, parseQueue, parseStatementBounded } from "../../src/statements/bounded.js";
import { girokontoCsv } from "../../scripts/bench/statement.js";

const refusal = (p: Promise<unknown>) =>
  p.then(
    () => null,
    (err: unknown) => err,
  );

describe("the statement parse queue: shares per person and a bound", function () {
  this.timeout(300_000);
  const large = girokontoCsv(1500);
  before(async () => {
    expect(large.length).to.be.greaterThan(INLINE_CHARS);
    await parseStatementBounded(large); // the workers started and the parsers compiled, once
  });

  it(`one person's statement beyond ${PER_OWNER} at once is refused with unavailable; another person's is read`, async () => {
    const mine = Array.from({ length: PER_OWNER }, () => parseStatementBounded(large, undefined, {}, undefined, {}, "usr_a"));
    const extra = await refusal(parseStatementBounded(large, undefined, {}, undefined, {}, "usr_a"));
    expect(extra).to.be.instanceOf(AppError);
    expect((extra as AppError).errorName).to.equal("unavailable");
    expect((extra as AppError).details.retry_after_seconds).to.be.greaterThan(0);
    const theirs = parseStatementBounded(large, undefined, {}, undefined, {}, "usr_b");
    const read = await Promise.all([...mine, theirs]);
    for (const r of read) expect(r.rows).to.have.length(1500);
    expect(parseQueue()).to.deep.equal({ running: 0, waiting: 0 });
  });

  it(`past ${QUEUED} statements waiting, a further one is refused with unavailable`, async () => {
    const owners = Array.from({ length: 2 + QUEUED }, (_, i) => `usr_${i}`);
    const accepted = owners.map((o) => parseStatementBounded(large, undefined, {}, undefined, {}, o));
    const over = await refusal(parseStatementBounded(large, undefined, {}, undefined, {}, "usr_late"));
    expect(over).to.be.instanceOf(AppError);
    expect((over as AppError).errorName).to.equal("unavailable");
    for (const r of await Promise.all(accepted)) expect(r.rows).to.have.length(1500);
  });
});
