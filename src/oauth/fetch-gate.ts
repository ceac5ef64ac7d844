/**
 * A cap on the client metadata documents being fetched at once by this process: at most MAX_TOTAL in
 * all and MAX_PER_REQUESTER for one client address (an IPv6 /64 counts as one, as in the per-address
 * limit). A request beyond either is refused at once (the caller answers "busy, retry"), never queued:
 * a queue would hold the waiting requests' sockets instead of the fetches' ones. Concurrent requests for
 * the same client_id share one fetch, which counts once.
 */
export const CIMD_MAX_CONCURRENT = 8;
export const CIMD_MAX_CONCURRENT_PER_REQUESTER = 2;

export class FetchBusyError extends Error {}

export class FetchGate {
  private total = 0;
  private readonly perRequester = new Map<string, number>();
  private readonly inFlight = new Map<string, Promise<unknown>>();

  constructor(
    readonly maxTotal = CIMD_MAX_CONCURRENT,
    readonly maxPerRequester = CIMD_MAX_CONCURRENT_PER_REQUESTER,
  ) {}

  /** Runs `fetch` for `url` on behalf of `requester`, or joins the fetch of `url` already running. */
  run<T>(url: string, requester: string, fetch: () => Promise<T>): Promise<T> {
    const running = this.inFlight.get(url);
    if (running) return running as Promise<T>;
    const mine = this.perRequester.get(requester) ?? 0;
    if (this.total >= this.maxTotal) throw new FetchBusyError(`this server is already fetching ${this.maxTotal} client metadata documents`);
    if (mine >= this.maxPerRequester) throw new FetchBusyError(`this address already has ${this.maxPerRequester} client metadata documents being fetched`);
    this.total++;
    this.perRequester.set(requester, mine + 1);
    const done = () => {
      this.total--;
      const left = (this.perRequester.get(requester) ?? 1) - 1;
      if (left > 0) this.perRequester.set(requester, left);
      else this.perRequester.delete(requester);
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
