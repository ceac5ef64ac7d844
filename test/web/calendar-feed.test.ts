/**
 * The private calendar feed of bill reminders, read back with an independent parser (ical.js, Mozilla's
 * iCalendar library, not the one that writes it): every due date list_bill_reminders shows for a year is
 * one all-day event, with an alarm at the reminder's lead time; a revoked or unknown URL is 404, and a
 * feed shows nobody else's bills.
 */
import { expect } from "chai";
import { randomUUID } from "node:crypto";
import ICAL from "ical.js";
import { createCalendarFeed, revokeCalendarFeed } from "../../src/auth/calendar-feeds.js";
import { authenticateBearer, createToken, KNOWN_SCOPES } from "../../src/auth/tokens.js";
import { createUser } from "../../src/auth/users.js";
import { WebClient } from "../helpers/web-client.js";
import { isUniqueViolation } from "../../src/db/errors.js";
import { seedDemoPerson } from "../../src/demo/seed.js";
import { FEED_DAYS_AHEAD } from "../../src/domain/calendar-feed/feed.js";
import { engine } from "../helpers/database.js";
import { startTestServer, type TestServer } from "../helpers/server.js";

interface ParsedEvent {
  uid: string;
  date: string;
  summary: string;
  alarms: { seconds: number; related: string | null; action: string }[];
}

function parseFeed(text: string): ParsedEvent[] {
  const cal = new ICAL.Component(ICAL.parse(text));
  return cal.getAllSubcomponents("vevent").map((v) => {
    const event = new ICAL.Event(v);
    expect(event.startDate.isDate, "an all-day event").to.equal(true);
    return {
      uid: event.uid,
      date: event.startDate.toString(),
      summary: event.summary,
      alarms: v.getAllSubcomponents("valarm").map((a) => {
        const trigger = a.getFirstProperty("trigger")!;
        return {
          seconds: (trigger.getFirstValue() as ICAL.Duration).toSeconds(),
          related: (trigger.getParameter("related") as string | undefined) ?? null,
          action: String(a.getFirstPropertyValue("action")),
        };
      }),
    };
  });
}

describe(`calendar feed of bill reminders (${engine})`, function () {
  this.timeout(120_000);
  let server: TestServer;
  const now = new Date("2026-11-25T12:00:00Z");
  before(async () => (server = await startTestServer({}, { now: () => now })));
  after(async () => server?.close());

  const feed = (secret: string) => fetch(`${server.url}/api/v1/calendar/${secret}.ics`);

  it("parses back into exactly the due dates of list_bill_reminders, each with its lead-time alarm", async () => {
    const alex = await server.createUser({ timezone: "Europe/Berlin", currency: "EUR" });
    const caller = await authenticateBearer(server.db, `Bearer ${alex.token}`, server.config.tokenPepper);
    await seedDemoPerson(server.services.dispatch, caller, now);
    // A reminder due on the day itself (lead time 0) and one with a week's lead time.
    await server.call(
      "create_bill_reminder",
      {
        name: "Gym",
        payee: "FitX",
        amount: "29.90",
        currency: "EUR",
        notice_days: 0,
        schedule: { frequency: "monthly", start_date: "2026-08-03", day_of_month: 3 },
        idempotency_key: randomUUID(),
      },
      alex.token,
    );
    const secret = await createCalendarFeed(server.db, alex.id, server.config.tokenPepper, now);
    const res = await feed(secret);
    expect(res.status).to.equal(200);
    expect(res.headers.get("content-type")).to.match(/^text\/calendar/);
    const body = await res.text();
    // RFC 5545 §3.1: every line ends with CRLF, END:VCALENDAR too, and no line ends bare.
    expect(body.endsWith("END:VCALENDAR\r\n")).to.equal(true);
    expect(body.replace(/\r\n/g, "")).to.not.include("\n");
    const events = parseFeed(body);

    const listed = await server.call("list_bill_reminders", { days_ahead: FEED_DAYS_AHEAD }, alex.token);
    const notice = new Map(listed.reminders.map((r: any) => [r.id, r.notice_days]));
    expect(events.map((e) => `${e.uid}`).sort()).to.deep.equal(listed.upcoming.map((o: any) => `${o.bill_reminder_id}-${o.due_date}@finance-mcp`).sort());
    for (const o of listed.upcoming) {
      const e = events.find((x) => x.uid === `${o.bill_reminder_id}-${o.due_date}@finance-mcp`)!;
      expect(e.date).to.equal(o.due_date);
      expect(e.summary).to.contain(o.name);
      if (o.expected_amount) expect(e.summary).to.contain(o.expected_amount.value);
      // One display alarm, lead time days before the due day at 09:00 (relative to the day's start).
      const days = notice.get(o.bill_reminder_id) as number;
      expect(e.alarms).to.deep.equal([{ seconds: -days * 86_400 + 9 * 3_600, related: "START", action: "DISPLAY" }]);
    }
    expect(listed.upcoming.length).to.be.greaterThan(40); // the year's rent, electricity, internet, gym, insurance, domain
    // Pinned by hand, not by the code both answers share: the gym on every 3rd from December to the next
    // November, alarmed on the day at 09:00; the car insurance once, on 1 December, alarmed 14 days before.
    const named = (prefix: string) => events.filter((e) => e.summary.startsWith(prefix)).sort((a, b) => (a.date < b.date ? -1 : 1));
    const months = ["2026-12", "2027-01", "2027-02", "2027-03", "2027-04", "2027-05", "2027-06", "2027-07", "2027-08", "2027-09", "2027-10", "2027-11"];
    expect(named("Gym due: 29.90 EUR").map((e) => [e.date, e.alarms[0]!.seconds])).to.deep.equal(months.map((m) => [`${m}-03`, 32_400]));
    expect(named("Car insurance due: 412.80 EUR").map((e) => [e.date, e.alarms[0]!.seconds])).to.deep.equal([["2026-12-01", -1_177_200]]);
  });

  it("carries the confirmed regular payments too when the person chooses so on /account (issue 38 item 4), and the choice is kept", async () => {
    const email = `feed-series-${randomUUID().slice(0, 8)}@example.test`;
    const password = "correct horse battery staple";
    const user = await createUser(server.db, { email, password, currency: "EUR", timezone: "Europe/Berlin" });
    const token = (await createToken(server.db, user.id, { name: "t", scopes: [...KNOWN_SCOPES], expiresInDays: 1 }, server.config.tokenPepper)).token;
    const { wallet } = await server.call("create_wallet", { name: "Giro", type: "checking", currency: "EUR", idempotency_key: randomUUID() }, token);
    for (const m of ["08", "09", "10", "11"])
      for (const [payee, amount, day] of [
        ["Netflix", "13.99", "15"],
        ["Spotify", "9.99", "20"],
      ] as const)
        await server.call(
          "create_transaction",
          { wallet_id: wallet.id, direction: "expense", amount, payee, date: `2026-${m}-${day}`, idempotency_key: randomUUID() },
          token,
        );
    await server.call("set_recurring_series", { series: "expense:EUR:netflix", decision: "confirm", idempotency_key: randomUUID() }, token);
    const secret = await createCalendarFeed(server.db, user.id, server.config.tokenPepper, now);
    // Off by default: the feed holds the bill reminders alone (none here).
    expect(parseFeed(await (await feed(secret)).text())).to.deep.equal([]);

    const client = new WebClient(server.url);
    expect((await client.signIn(email, password)).status).to.equal(303);
    expect((await client.get("/account")).text).to.match(/name="series" value="1">/);
    const saved = await client.post("/account/calendar-feed/series", { series: "1" });
    expect([saved.status, saved.location]).to.deep.equal([303, "/account#calendar"]);
    expect((await client.get("/account")).text).to.match(/name="series" value="1" checked>/);
    const body = await (await feed(secret)).text();
    expect(body.endsWith("END:VCALENDAR\r\n")).to.equal(true);
    const events = parseFeed(body);
    // Netflix, confirmed, on every 15th for a year from today (2026-11-25); Spotify, not confirmed, never.
    const months = ["2026-12", "2027-01", "2027-02", "2027-03", "2027-04", "2027-05", "2027-06", "2027-07", "2027-08", "2027-09", "2027-10", "2027-11"];
    expect(events.map((e) => [e.date, e.summary, e.alarms.length])).to.deep.equal(months.map((m) => [`${m}-15`, "Netflix due: 13.99 EUR", 0]));
    expect(new Set(events.map((e) => e.uid)).size).to.equal(12);
    // Unchecked: the form sends no field, and the series leave the feed.
    await client.post("/account/calendar-feed/series", {});
    expect(parseFeed(await (await feed(secret)).text())).to.deep.equal([]);
  });

  it("answers 404 for a revoked, replaced or unknown URL, and shows only the owner's bills", async () => {
    const me = await server.createUser();
    const other = await server.createUser();
    await server.call(
      "create_bill_reminder",
      {
        name: "Theirs",
        amount: "5.00",
        currency: "USD",
        schedule: { frequency: "monthly", start_date: "2026-11-01", day_of_month: 1 },
        idempotency_key: randomUUID(),
      },
      other.token,
    );
    const first = await createCalendarFeed(server.db, me.id, server.config.tokenPepper, now);
    expect(parseFeed(await (await feed(first)).text())).to.deep.equal([]);
    const second = await createCalendarFeed(server.db, me.id, server.config.tokenPepper, now);
    expect((await feed(first)).status).to.equal(404);
    expect((await feed(second)).status).to.equal(200);
    await revokeCalendarFeed(server.db, me.id, now);
    expect((await feed(second)).status).to.equal(404);
    expect((await feed("cal_" + "A".repeat(32))).status).to.equal(404);
    expect((await feed("nonsense")).status).to.equal(404);
  });

  it("keeps one live URL per person when many are asked for at once, and the database refuses a second one", async () => {
    const me = await server.createUser();
    const secrets = await Promise.all(Array.from({ length: 8 }, () => createCalendarFeed(server.db, me.id, server.config.tokenPepper, now)));
    expect(new Set(secrets).size).to.equal(8);
    const live = await server.db("calendar_feeds").where({ user_id: me.id }).whereNull("revoked_at").select("secret_hash");
    expect(live).to.have.length(1);
    const statuses = await Promise.all(secrets.map(async (s) => (await feed(s)).status));
    expect(statuses.filter((s) => s === 200)).to.have.length(1);
    expect(statuses.filter((s) => s === 404)).to.have.length(7);
    // The constraint itself: a second live row is refused, a revoked one is not.
    let refused: unknown;
    await server
      .db("calendar_feeds")
      .insert({ secret_hash: "x".repeat(64), user_id: me.id, created_at: now.toISOString() })
      .catch((err: unknown) => (refused = err));
    expect(isUniqueViolation(refused), String(refused)).to.equal(true);
    await server.db("calendar_feeds").insert({ secret_hash: "y".repeat(64), user_id: me.id, created_at: now.toISOString(), revoked_at: now.toISOString() });
  });
});
