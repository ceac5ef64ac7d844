/**
 * Throttling of HTTP Basic logins (the tokens endpoint) on rate-limiter-flexible limiters over the shared
 * rate_limits table (so every process sees the same counts). Each attempt is counted atomically *before*
 * the password is checked, so a burst of parallel guesses cannot slip past the threshold; a right
 * password then gives the point back.
 *
 * Nobody is locked out by someone else's guesses: refusals are keyed on what the guesser controls.
 * Per email AND client address (consecutive failures): the first 3 cost nothing; from the 4th attempt
 * each one is held back 1 s more than the previous (at most 5 s), before the password is checked,
 * whatever the outcome, so that timing out early teaches an attacker nothing; after 10 the pair is
 * refused (429) for 15 minutes. A success resets it; it also lapses an hour after the first failure.
 * Per email across all addresses (consecutive failures): slowed from the 11th the same way, never
 * refused, so guesses spread over many addresses still cost time while the owner, from an address of
 * their own, gets in (at worst 5 s later). A success resets it.
 * Per client address (all failures within an hour): slowed from the 21st the same way, never refused.
 * Many people can share one address (a NAT, an office, a proxy whose TRUST_PROXY is unset): a refusal
 * keyed on the address alone would let anyone's made-up emails lock every one of them out, and a correct
 * password must never be refused because of other people's failures (docs/decisions.md#login-throttle-keys).
 * Successes do not reset it (an attacker could otherwise log into their own account between guesses),
 * they only give their own point back.
 * So the only refusal is keyed on email and address together: only the guesser's own pair is locked.
 * A browser that signed in to the email before (a valid device cookie, src/auth/device-cookie.ts) is
 * counted per email and device instead of per email and address: behind a proxy with TRUST_PROXY unset,
 * where everyone has the proxy's address, the attacker's failures still never refuse the owner's browser.
 */
import { createHash } from "node:crypto";
import { isIPv6 } from "node:net";
import { RateLimiterRes, type RateLimiterAbstract } from "rate-limiter-flexible";
import type { LoginThrottle, LoginVerdict } from "./types.js";

export interface LoginPolicy {
  /** Attempts without delay. */
  slowAfter: number;
  /** Attempts allowed in the window; the next is refused for blockSeconds (Infinity: slowed, never refused). */
  refuseAfter: number;
  windowSeconds: number;
  blockSeconds: number;
  /** Delay added per attempt beyond slowAfter, and its cap. */
  delayStepMs: number;
  maxDelayMs: number;
}

export interface LoginPolicies {
  /** Per email and client address together. */
  email: LoginPolicy;
  /** Per email whatever the address: slows, never refuses. */
  account: LoginPolicy;
  /** Per client address whatever the email: slows, never refuses (by default). */
  address: LoginPolicy;
}

export const LOGIN_POLICIES: LoginPolicies = {
  email: { slowAfter: 3, refuseAfter: 10, windowSeconds: 3600, blockSeconds: 15 * 60, delayStepMs: 1000, maxDelayMs: 5000 },
  account: { slowAfter: 10, refuseAfter: Infinity, windowSeconds: 3600, blockSeconds: 0, delayStepMs: 1000, maxDelayMs: 5000 },
  address: { slowAfter: 20, refuseAfter: Infinity, windowSeconds: 3600, blockSeconds: 0, delayStepMs: 1000, maxDelayMs: 5000 },
};

/** Email → a fixed-length key that keeps addresses out of the rate_limits table. */
export function emailKey(email: string): string {
  return createHash("sha256").update(email.trim().toLowerCase()).digest("hex");
}

/** Email and address → the key of the pair's count. */
export function pairKey(email: string, address: string): string {
  return createHash("sha256")
    .update(`${email.trim().toLowerCase()}\n${addressKey(address)}`)
    .digest("hex");
}

/** Email and a device cookie's nonce → the key of that device's count (src/auth/device-cookie.ts). */
export function deviceKey(email: string, device: string): string {
  return createHash("sha256").update(`${email.trim().toLowerCase()}\ndevice:${device}`).digest("hex");
}

/** IPv4-mapped IPv6 → IPv4; IPv6 → its /64 network (one host usually holds a whole /64). */
export function addressKey(address: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return mapped[1]!;
  if (!isIPv6(address)) return address;
  const [head = "", tail] = address.split("%")[0]!.split("::");
  const left = head ? head.split(":") : [];
  const right = tail === undefined ? [] : tail ? tail.split(":") : [];
  const groups = tail === undefined ? left : [...left, ...Array(8 - left.length - right.length).fill("0"), ...right];
  return `${groups
    .slice(0, 4)
    .map((g) => parseInt(g || "0", 16).toString(16))
    .join(":")}::/64`;
}

function delayFor(policy: LoginPolicy, attempts: number): number {
  return attempts > policy.slowAfter ? Math.min(policy.maxDelayMs, (attempts - policy.slowAfter) * policy.delayStepMs) : 0;
}

async function count(limiter: RateLimiterAbstract, key: string): Promise<RateLimiterRes> {
  try {
    return await limiter.consume(key, 1);
  } catch (rejection) {
    if (rejection instanceof RateLimiterRes) return rejection;
    throw rejection;
  }
}

export function createLoginThrottle(
  limiters: { email: RateLimiterAbstract; account: RateLimiterAbstract; address: RateLimiterAbstract },
  policies: LoginPolicies = LOGIN_POLICIES,
): LoginThrottle {
  return {
    async attempt(email, clientAddress, device): Promise<LoginVerdict> {
      const [byPair, byAccount, byAddress] = await Promise.all([
        count(limiters.email, device ? deviceKey(email, device) : pairKey(email, clientAddress)),
        count(limiters.account, emailKey(email)),
        count(limiters.address, addressKey(clientAddress)),
      ]);
      const refusals = [
        byPair.consumedPoints > policies.email.refuseAfter ? byPair.msBeforeNext : -1,
        // A known device is refused only for its own failures (above), never for its address's.
        !device && byAddress.consumedPoints > policies.address.refuseAfter ? byAddress.msBeforeNext : -1,
      ].filter((ms) => ms >= 0);
      if (refusals.length) return { refused: true, retryAfterSeconds: Math.max(1, Math.ceil(Math.max(...refusals) / 1000)) };
      return {
        refused: false,
        delayMs: Math.max(
          delayFor(policies.email, byPair.consumedPoints),
          delayFor(policies.account, byAccount.consumedPoints),
          delayFor(policies.address, byAddress.consumedPoints),
        ),
      };
    },
    async succeeded(email, clientAddress, device) {
      await Promise.all([
        limiters.email.delete(device ? deviceKey(email, device) : pairKey(email, clientAddress)),
        limiters.account.delete(emailKey(email)),
        limiters.address.reward(addressKey(clientAddress), 1),
      ]);
    },
  };
}
