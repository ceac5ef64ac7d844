/**
 * The calendar feed section of /account: make a private feed URL of the bill reminders (shown once, like
 * a token), or revoke it; and choose whether it carries the confirmed regular payments too (issue 38
 * item 4, kept in users.calendar_series). The feed itself is src/web/calendar-feed-route.ts.
 */
import type { Request } from "express";
import type { FeedStatus } from "../auth/calendar-feeds.js";
import type { Config } from "../config.js";
import { escapeHtml } from "./layout.js";

/** The feed URL of a secret, on this server's public address. */
export function feedUrl(config: Config, req: Request, secret: string): string {
  return `${config.publicUrl || `http://${req.headers.host ?? "127.0.0.1"}`}/api/v1/calendar/${secret}.ics`;
}

export function calendarFeedSection(feed: FeedStatus | undefined, hidden: string, createdUrl?: string, series = false): string {
  const made = createdUrl
    ? `<section class="notice" aria-labelledby="feed-created"><h3 id="feed-created">Calendar feed URL</h3>
<p>Copy it now: it is shown only once. Subscribe to it in your phone or desktop calendar ("add calendar from URL"); anyone with the URL can read your bills.</p>
<pre id="feed-url">${escapeHtml(createdUrl)}</pre><button type="button" class="secondary" data-copy="feed-url">Copy URL</button></section>`
    : "";
  const state = feed
    ? `<p>A calendar feed is on since ${escapeHtml(feed.created_at.slice(0, 10))} (last read ${escapeHtml(feed.last_fetched_at ? feed.last_fetched_at.replace("T", " ").slice(0, 16) + " UTC" : "never")}).</p>
<form method="post" action="/account/calendar-feed/revoke">${hidden}<button class="secondary" type="submit">Revoke the feed URL</button></form>`
    : "<p>Your bill reminders as a calendar your phone subscribes to, each with an alert at its lead time (notice days).</p>";
  return `<h2 id="calendar">Bill calendar</h2>
${made}${state}
<form method="post" action="/account/calendar-feed">${hidden}<button type="submit">${feed ? "Make a new URL (the old one stops)" : "Make a calendar feed URL"}</button></form>
<form method="post" action="/account/calendar-feed/series">${hidden}
<label><input type="checkbox" name="series" value="1"${series ? " checked" : ""}> Also show my confirmed regular payments (subscriptions, bills and income confirmed or corrected through set_recurring_series) on their expected days</label>
<button class="secondary" type="submit">Save calendar choice</button></form>`;
}
