/**
 * GET /api/v1/calendar/<secret>.ics: the private iCalendar feed of the person's bill reminders (and their
 * confirmed regular payments, when they chose so on /account)
 * (src/domain/calendar-feed/feed.ts) that phone and desktop calendars subscribe to. Calendar apps send no
 * headers, so the secret in the path is the credential (made and revoked on /account,
 * src/auth/calendar-feeds.ts); it is never logged (src/http/request-scope.ts). An unknown, revoked or
 * malformed secret is one 404, so secrets cannot be probed.
 */
import express, { type NextFunction, type Request, type Response, type Router } from "express";
import type { Knex } from "knex";
import { feedOwner } from "../auth/calendar-feeds.js";
import { todayInTimeZone } from "../calendar/time-zones.js";
import type { Config } from "../config.js";
import { billsCalendar } from "../domain/calendar-feed/feed.js";
import { hostAndOriginGuard } from "../http/guards.js";

export const CALENDAR_ROUTE = "/api/v1/calendar/:file";

export function calendarRouter(deps: { db: Knex; config: Config; now: () => Date }): Router {
  const router = express.Router();
  router.get(CALENDAR_ROUTE, hostAndOriginGuard(deps.config), (req: Request, res: Response, next: NextFunction) => {
    void (async () => {
      const file = String(req.params.file);
      const owner = file.endsWith(".ics") ? await feedOwner(deps.db, file.slice(0, -4), deps.config.tokenPepper, deps.now()) : undefined;
      if (!owner) {
        res.status(404).type("text/plain").send("No such calendar feed (the URL was revoked or mistyped). Make a new one on your account page.");
        return;
      }
      const body = await billsCalendar(deps.db, owner.id, todayInTimeZone(owner.timezone, deps.now()), { series: owner.series });
      res.setHeader("Cache-Control", "private, max-age=300");
      res.setHeader("Referrer-Policy", "no-referrer");
      res.status(200).type("text/calendar; charset=utf-8").send(body);
    })().catch(next);
  });
  return router;
}
