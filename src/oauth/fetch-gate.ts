/**
 * A cap on the client metadata documents being fetched at once by this process: at most MAX_TOTAL in
 * all, MAX_PER_REQUESTER for one client address (an IPv6 /64 counts as one, as in the per-address
 * limit) and MAX_PER_HOST for one document host. A request beyond any is refused at once (the caller
 * answers "busy, retry"), never queued: a queue would hold the waiting requests' sockets instead of the
 * fetches' ones. Concurrent requests for the same client_id share one fetch, which counts once.
 *
 * The per-host cap is what keeps a legitimate client's fetch possible while slow hosts are asked for
 * documents: 5 slow hosts hold at most 10 of the 16 slots, each for at most the fetch timeout
 * (CIMD_TIMEOUT_MS, 2 s). Filling every slot takes 8 hosts, and keeping them filled 8 new fetches a
 * second, which the per-address limit (60 an hour) turns into 480 client addresses (docs/security.md,
 * "Bounds of the low findings").
 */
export const CIMD_MAX_CONCURRENT = 16;
export const CIMD_MAX_CONCURRENT_PER_REQUESTER = 2;
export const CIMD_MAX_CONCURRENT_PER_HOST = 2;

export class FetchBusyError extends Error {}

export class FetchGate {
  private total = 0;
  private readonly perRequester = new Map<string, number>();
  private readonly perHost = new Map<string, number>();
  private readonly inFlight = new Map<string, Promise<unknown>>();

  constructor(
    readonly maxTotal = CIMD_MAX_CONCURRENT,
    readonly maxPerRequester = CIMD_MAX_CONCURRENT_PER_REQUESTER,
    readonly maxPerHost = CIMD_MAX_CONCURRENT_PER_HOST,
  ) {}

  /** Runs `fetch` for `url` on behalf of `requester`, or joins the fetch of `url` already running. */
  run<T>(url: string, requester: string, fetch: () => Promise<T>): Promise<T> {
    const running = this.inFlight.get(url);
    if (running) return running as Promise<T>;
    const host = hostOf(url);
    const mine = this.perRequester.get(requester) ?? 0;
    const theirs = this.perHost.get(host) ?? 0;
    if (this.total >= this.maxTotal) throw new FetchBusyError(`this server is already fetching ${this.maxTotal} client metadata documents`);
    if (mine >= this.maxPerRequester) throw new FetchBusyError(`this address already has ${this.maxPerRequester} client metadata documents being fetched`);
    if (theirs >= this.maxPerHost) throw new FetchBusyError(`${this.maxPerHost} client metadata documents are already being fetched from ${host}`);
    this.total++;
    this.perRequester.set(requester, mine + 1);
    this.perHost.set(host, theirs + 1);
    const done = () => {
      this.total--;
      release(this.perRequester, requester);
      release(this.perHost, host);
      this.inFlight.delete(url);
    };
    const promise = Promise.resolve().then(fetch).finally(done);
    this.inFlight.set(url, promise);
    return promise;
  }

  /** Fetches running now (tests and metrics). */
  get running(): number {
    return this.total;
  }
}

/** The process's one gate. */
export const cimdFetchGate = new FetchGate();

function release(counts: Map<string, number>, key: string): void {
  const left = (counts.get(key) ?? 1) - 1;
  if (left > 0) counts.set(key, left);
  else counts.delete(key);
}

/** The host a document is fetched from (the URL was checked before: cimdUrlProblem). */
function hostOf(url: string): string {
  try {
    return new URL(url).hostname;
  } catch {
    return url;
  }
}
