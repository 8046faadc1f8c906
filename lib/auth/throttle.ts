/**
 * Failed-login throttle: a client address that failed too often in the window is locked out, and so is everyone
 * once too many failures arrive from all addresses together (a guesser spread over many addresses, or one that
 * forges X-Forwarded-For). A guess counts from the moment it arrives, not when its answer is sent, so guesses sent
 * in parallel are counted too. In memory, per server process: N processes allow N times the guesses, which the
 * global limit still bounds per process.
 */

export interface ThrottleLimits {
  /** Failures of one address within the window before it is locked out. */
  perAddress: number;
  /** Failures of all addresses within the window before every login is locked out. */
  global: number;
  windowMs: number;
}

export function throttleLimits(env: Record<string, string | undefined> = process.env): ThrottleLimits {
  const int = (name: string, fallback: number) => {
    const value = Number(env[name]);
    return env[name] !== undefined && Number.isSafeInteger(value) && value > 0 ? value : fallback;
  };
  return {
    perAddress: int("DUPSCOPE_LOGIN_MAX_FAILURES", 5),
    global: int("DUPSCOPE_LOGIN_MAX_FAILURES_GLOBAL", 100),
    windowMs: int("DUPSCOPE_LOGIN_WINDOW_S", 900) * 1000,
  };
}

export type Admission = { ok: true; attempt: Attempt } | { ok: false; retryAfterS: number; scope: "address" | "global"; lockedNow: boolean };

export interface Attempt {
  /** The password was right: the address's failures are forgiven. */
  succeeded(): void;
}

export class LoginThrottle {
  private readonly byAddress = new Map<string, number[]>();
  private all: number[] = [];
  /** Addresses (and "*") already reported as locked out in their current lockout: one log line each. */
  private readonly reported = new Set<string>();

  constructor(
    private readonly limits: ThrottleLimits,
    private readonly now: () => number = Date.now,
  ) {}

  /** Counts a login attempt as a failure until it succeeds; refuses it when the address or everyone is locked out. */
  admit(address: string): Admission {
    const now = this.now();
    const since = now - this.limits.windowMs;
    this.all = this.all.filter((t) => t > since);
    const mine = (this.byAddress.get(address) ?? []).filter((t) => t > since);
    if (mine.length === 0) {
      this.byAddress.delete(address);
      this.reported.delete(address);
    }
    if (this.all.length === 0) this.reported.delete("*");
    const lockedBy = mine.length >= this.limits.perAddress ? { scope: "address" as const, key: address, times: mine, limit: this.limits.perAddress } : this.all.length >= this.limits.global ? { scope: "global" as const, key: "*", times: this.all, limit: this.limits.global } : undefined;
    if (lockedBy) {
      // Locked until enough of the failures in the window have aged out of it.
      const oldest = lockedBy.times[lockedBy.times.length - lockedBy.limit]!;
      const lockedNow = !this.reported.has(lockedBy.key);
      this.reported.add(lockedBy.key);
      return { ok: false, scope: lockedBy.scope, retryAfterS: Math.max(1, Math.ceil((oldest + this.limits.windowMs - now) / 1000)), lockedNow };
    }
    mine.push(now);
    this.all.push(now);
    this.byAddress.set(address, mine);
    this.prune(since);
    return {
      ok: true,
      attempt: {
        succeeded: () => {
          this.byAddress.delete(address);
          this.reported.delete(address);
          const at = this.all.lastIndexOf(now);
          if (at >= 0) this.all.splice(at, 1);
        },
      },
    };
  }

  /** Keeps memory bounded when many addresses each fail once. */
  private prune(since: number): void {
    if (this.byAddress.size <= 10_000) return;
    for (const [address, times] of this.byAddress) if (times[times.length - 1]! <= since) this.byAddress.delete(address);
  }
}

/** The client's address as the server sees it: the first X-Forwarded-For hop (Next.js fills it from the socket). */
export function clientAddress(headers: Headers): string {
  return headers.get("x-forwarded-for")?.split(",")[0]?.trim() || "unknown";
}
