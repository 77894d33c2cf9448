import { describe, expect, it } from "vitest";
import { DEFAULT_LIMITS, resolveLimits, RunLimiter, type Admission, type ResolvedLimits } from "../../src/proxy/limits.js";

/** A clock the test moves by hand, so no assertion depends on real time. */
function fakeClock(start = 1_000_000) {
  let t = start;
  return {
    now: () => t,
    set: (ms: number) => {
      t = ms;
    },
    advance: (ms: number) => {
      t += ms;
    },
  };
}

function limits(overrides: Partial<ResolvedLimits>): ResolvedLimits {
  return { ...DEFAULT_LIMITS, ...overrides };
}

function admitted(a: Admission): Extract<Admission, { ok: true }> {
  if (!a.ok) throw new Error(`expected an admission, found a refusal: ${a.message}`);
  return a;
}

function refused(a: Admission): Extract<Admission, { ok: false }> {
  if (a.ok) throw new Error("expected a refusal, found an admission");
  return a;
}

describe("DEFAULT_LIMITS and resolveLimits", () => {
  it("defaults to a 1 MiB body, a 30 s first byte, 5 min of upstream silence and no other limit", () => {
    expect(DEFAULT_LIMITS).toEqual({
      maxBodyBytes: 1_048_576,
      concurrentRuns: Infinity,
      runsPerMinute: Infinity,
      runTimeoutMs: Infinity,
      firstByteTimeoutMs: 30_000,
      idleTimeoutMs: 300_000,
    });
    expect(Object.isFrozen(DEFAULT_LIMITS)).toBe(true);
  });

  it("gives the defaults when nothing is configured", () => {
    expect(resolveLimits(undefined, undefined)).toEqual(DEFAULT_LIMITS);
    expect(resolveLimits({}, {})).toEqual(DEFAULT_LIMITS);
  });

  it("returns a fresh object each time", () => {
    const a = resolveLimits(undefined, undefined);
    a.concurrentRuns = 3;
    expect(resolveLimits(undefined, undefined).concurrentRuns).toBe(Infinity);
    expect(DEFAULT_LIMITS.concurrentRuns).toBe(Infinity);
  });

  it("takes the top level over the defaults", () => {
    expect(resolveLimits({ concurrentRuns: 4, maxBodyBytes: 10 }, undefined)).toEqual({
      ...DEFAULT_LIMITS,
      concurrentRuns: 4,
      maxBodyBytes: 10,
    });
  });

  it("takes the agent's own over the top level, key by key", () => {
    const top = { maxBodyBytes: 100, concurrentRuns: 4, runsPerMinute: 60, runTimeoutMs: 5_000 };
    const own = { concurrentRuns: 1, firstByteTimeoutMs: 2_000 };
    expect(resolveLimits(top, own)).toEqual({
      maxBodyBytes: 100, // top level
      concurrentRuns: 1, // own beats top level
      runsPerMinute: 60, // top level
      runTimeoutMs: 5_000, // top level
      firstByteTimeoutMs: 2_000, // own beats default
      idleTimeoutMs: 300_000, // default
    });
  });

  it("takes the agent's own over the defaults when there is no top level", () => {
    expect(resolveLimits(undefined, { runsPerMinute: 7 })).toEqual({ ...DEFAULT_LIMITS, runsPerMinute: 7 });
  });
});

describe("RunLimiter: concurrency", () => {
  const two = limits({ concurrentRuns: 2 });

  it("admits up to N and refuses the next with reason, retry and message", () => {
    const limiter = new RunLimiter({ now: fakeClock().now });
    admitted(limiter.acquire("k", two));
    admitted(limiter.acquire("k", two));
    const refusal = refused(limiter.acquire("k", two));
    expect(refusal).toEqual({
      ok: false,
      reason: "concurrent_runs",
      retryAfterSeconds: 1,
      message: "too many concurrent runs: at most 2 at a time for this agent, 2 running",
    });
  });

  it("admits again after a release", () => {
    const limiter = new RunLimiter({ now: fakeClock().now });
    const a = admitted(limiter.acquire("k", two));
    admitted(limiter.acquire("k", two));
    refused(limiter.acquire("k", two));
    a.release();
    admitted(limiter.acquire("k", two));
    refused(limiter.acquire("k", two));
  });

  it("counts a second release of the same run once", () => {
    const limiter = new RunLimiter({ now: fakeClock().now });
    const a = admitted(limiter.acquire("k", two));
    admitted(limiter.acquire("k", two));
    a.release();
    a.release();
    admitted(limiter.acquire("k", two));
    // Had the second release counted, this would be admitted as a third run in flight.
    const refusal = refused(limiter.acquire("k", two));
    expect(refusal.message).toContain("2 running");
  });

  it("keeps keys independent", () => {
    const limiter = new RunLimiter({ now: fakeClock().now });
    const one = limits({ concurrentRuns: 1 });
    admitted(limiter.acquire("alice\u0000echo", one));
    refused(limiter.acquire("alice\u0000echo", one));
    admitted(limiter.acquire("bob\u0000echo", one));
    admitted(limiter.acquire("alice\u0000other", one));
    expect(limiter.size).toBe(3);
  });

  it("forgets a key as soon as its last run is released when no rate applies", () => {
    const limiter = new RunLimiter({ now: fakeClock().now });
    const a = admitted(limiter.acquire("k", two));
    const b = admitted(limiter.acquire("k", two));
    a.release();
    expect(limiter.size).toBe(1);
    b.release();
    expect(limiter.size).toBe(0);
  });
});

describe("RunLimiter: runs per minute", () => {
  const three = limits({ runsPerMinute: 3 });

  it("admits up to N in a minute and refuses the next with reason, retry and message", () => {
    const clock = fakeClock(0);
    const limiter = new RunLimiter({ now: clock.now });
    admitted(limiter.acquire("k", three)).release(); // t = 0
    clock.set(10_000);
    admitted(limiter.acquire("k", three)).release();
    clock.set(20_000);
    admitted(limiter.acquire("k", three)).release();
    clock.set(48_000);
    expect(refused(limiter.acquire("k", three))).toEqual({
      ok: false,
      reason: "runs_per_minute",
      retryAfterSeconds: 12,
      message: "too many runs: at most 3 a minute for this agent; retry in 12 s",
    });
  });

  it("rounds retryAfterSeconds up, and never below 1, at several clock positions", () => {
    const clock = fakeClock(0);
    const limiter = new RunLimiter({ now: clock.now });
    const one = limits({ runsPerMinute: 1 });
    admitted(limiter.acquire("k", one)); // oldest start at t = 0, leaves at 60 000
    const cases: [now: number, retry: number][] = [
      [0, 60],
      [1, 60], // 59.999 s left
      [999, 60],
      [1_000, 59],
      [30_500, 30], // 29.5 s left
      [58_999, 2],
      [59_000, 1],
      [59_001, 1], // 0.999 s left
      [59_999, 1], // 1 ms left: still a whole second
    ];
    for (const [now, retry] of cases) {
      clock.set(now);
      const refusal = refused(limiter.acquire("k", one));
      expect({ now, retry: refusal.retryAfterSeconds }).toEqual({ now, retry });
      expect(refusal.message).toBe(`too many runs: at most 1 a minute for this agent; retry in ${retry} s`);
    }
  });

  it("admits again exactly when the oldest start is 60 000 ms old", () => {
    const clock = fakeClock(5_000);
    const limiter = new RunLimiter({ now: clock.now });
    admitted(limiter.acquire("k", three)).release(); // 5 000
    clock.set(6_000);
    admitted(limiter.acquire("k", three)).release();
    clock.set(7_000);
    admitted(limiter.acquire("k", three)).release();
    clock.set(64_999);
    expect(refused(limiter.acquire("k", three)).retryAfterSeconds).toBe(1);
    clock.set(65_000);
    admitted(limiter.acquire("k", three)).release();
    // Only the 5 000 start left; the next place frees at 66 000.
    expect(refused(limiter.acquire("k", three)).retryAfterSeconds).toBe(1);
    clock.set(66_000);
    admitted(limiter.acquire("k", three)).release();
    clock.set(66_500);
    // Oldest is now 7 000, leaving at 67 000: 0.5 s, rounded up.
    expect(refused(limiter.acquire("k", three)).retryAfterSeconds).toBe(1);
  });

  it("does not let refused attempts extend the window", () => {
    const clock = fakeClock(0);
    const limiter = new RunLimiter({ now: clock.now });
    const two = limits({ runsPerMinute: 2 });
    admitted(limiter.acquire("k", two)).release(); // 0
    admitted(limiter.acquire("k", two)).release(); // 0
    for (let t = 1_000; t < 60_000; t += 1_000) {
      clock.set(t);
      refused(limiter.acquire("k", two));
    }
    clock.set(60_000);
    admitted(limiter.acquire("k", two)).release();
    admitted(limiter.acquire("k", two)).release();
    refused(limiter.acquire("k", two));
  });

  it("counts starts, not runs in flight: a released run still occupies its place in the window", () => {
    const clock = fakeClock(0);
    const limiter = new RunLimiter({ now: clock.now });
    const one = limits({ runsPerMinute: 1 });
    admitted(limiter.acquire("k", one)).release();
    clock.advance(1);
    expect(refused(limiter.acquire("k", one)).reason).toBe("runs_per_minute");
  });

  it("keeps keys independent", () => {
    const limiter = new RunLimiter({ now: fakeClock().now });
    const one = limits({ runsPerMinute: 1 });
    admitted(limiter.acquire("a", one));
    refused(limiter.acquire("a", one));
    admitted(limiter.acquire("b", one));
  });

  it("follows a lowered limit using the newest starts", () => {
    const clock = fakeClock(0);
    const limiter = new RunLimiter({ now: clock.now });
    for (let t = 0; t < 5; t++) {
      clock.set(t * 10_000);
      admitted(limiter.acquire("k", limits({ runsPerMinute: 10 }))).release();
    }
    // Starts at 0, 10 000, ..., 40 000. With a limit of 2, the two newest (30 000, 40 000) decide.
    clock.set(45_000);
    expect(refused(limiter.acquire("k", limits({ runsPerMinute: 2 }))).retryAfterSeconds).toBe(45);
  });
});

describe("RunLimiter: both limits", () => {
  const both = limits({ concurrentRuns: 1, runsPerMinute: 1 });

  it("checks concurrency before rate", () => {
    const clock = fakeClock(0);
    const limiter = new RunLimiter({ now: clock.now });
    const a = admitted(limiter.acquire("k", both));
    clock.set(30_000);
    // Both limits are reached; concurrency is the one reported.
    expect(refused(limiter.acquire("k", both))).toMatchObject({ reason: "concurrent_runs", retryAfterSeconds: 1 });
    a.release();
    expect(refused(limiter.acquire("k", both))).toMatchObject({ reason: "runs_per_minute", retryAfterSeconds: 30 });
    clock.set(60_000);
    admitted(limiter.acquire("k", both));
  });

  it("takes no slot and no place in the window for a run refused for rate", () => {
    const clock = fakeClock(0);
    const limiter = new RunLimiter({ now: clock.now });
    const l = limits({ concurrentRuns: 2, runsPerMinute: 1 });
    admitted(limiter.acquire("k", l));
    clock.set(10_000);
    refused(limiter.acquire("k", l)); // rate: took no concurrency slot
    clock.set(60_000);
    // One run in flight, window free again: the second slot is still there.
    admitted(limiter.acquire("k", l));
    refused(limiter.acquire("k", l));
  });

  it("takes no place in the window for a run refused for concurrency", () => {
    const clock = fakeClock(0);
    const limiter = new RunLimiter({ now: clock.now });
    const l = limits({ concurrentRuns: 1, runsPerMinute: 2 });
    const a = admitted(limiter.acquire("k", l));
    for (let i = 0; i < 5; i++) refused(limiter.acquire("k", l));
    a.release();
    admitted(limiter.acquire("k", l)); // the second of 2 a minute
  });
});

describe("RunLimiter: unlimited", () => {
  it("never refuses with Infinity limits and holds nothing once runs are released", () => {
    const clock = fakeClock();
    const limiter = new RunLimiter({ now: clock.now });
    const runs = [];
    for (let i = 0; i < 1_000; i++) runs.push(admitted(limiter.acquire("k", DEFAULT_LIMITS)));
    expect(limiter.size).toBe(1);
    for (const run of runs) run.release();
    // Not a minute later: nothing to wait for, since no start is kept without a rate.
    expect(limiter.size).toBe(0);
  });

  it("uses Date.now when no clock is given", () => {
    const limiter = new RunLimiter();
    const a = admitted(limiter.acquire("k", limits({ runsPerMinute: 1 })));
    a.release();
    const refusal = refused(limiter.acquire("k", limits({ runsPerMinute: 1 })));
    expect(refusal.retryAfterSeconds).toBeGreaterThanOrEqual(1);
    expect(refusal.retryAfterSeconds).toBeLessThanOrEqual(60);
  });
});

describe("RunLimiter: memory bound", () => {
  it("returns to size 0 once 10 000 keys have released every run and the window has passed", () => {
    const clock = fakeClock(0);
    const limiter = new RunLimiter({ now: clock.now });
    const l = limits({ concurrentRuns: 2, runsPerMinute: 5 });
    const runs = [];
    for (let i = 0; i < 10_000; i++) {
      clock.set(i); // spread the starts so keys expire at different times
      runs.push(admitted(limiter.acquire(`p${i}\u0000agent`, l)));
    }
    expect(limiter.size).toBe(10_000);
    for (const run of runs) run.release();
    // Released, but their starts are still in the window.
    expect(limiter.size).toBe(10_000);
    clock.set(60_000 + 4_999); // keys 0..4 999 have left the window
    expect(limiter.size).toBe(5_000);
    clock.set(60_000 + 9_999);
    expect(limiter.size).toBe(0);
  });

  it("keeps a key whose run is still in flight after its window has passed", () => {
    const clock = fakeClock(0);
    const limiter = new RunLimiter({ now: clock.now });
    const l = limits({ runsPerMinute: 5 });
    const a = admitted(limiter.acquire("k", l));
    clock.set(120_000);
    expect(limiter.size).toBe(1);
    a.release();
    expect(limiter.size).toBe(0);
  });

  it("holds only the last minute's keys under a stream of distinct keys", () => {
    const clock = fakeClock(0);
    const limiter = new RunLimiter({ now: clock.now });
    const l = limits({ runsPerMinute: 3 });
    let most = 0;
    // One new key per 10 ms for 5 minutes: at most 6 000 keys can have a start inside any window.
    for (let i = 0; i < 30_000; i++) {
      clock.set(i * 10);
      admitted(limiter.acquire(`key${i}`, l)).release();
      if (i % 1_000 === 0) most = Math.max(most, limiter.size);
    }
    expect(most).toBeLessThanOrEqual(6_000);
    expect(limiter.size).toBe(6_000);
    clock.advance(60_000);
    expect(limiter.size).toBe(0);
  });

  it("forgets a key that ran again after being queued for expiry, once its newer start expires", () => {
    const clock = fakeClock(0);
    const limiter = new RunLimiter({ now: clock.now });
    const l = limits({ runsPerMinute: 5 });
    admitted(limiter.acquire("k", l)).release(); // 0, queued for 60 000
    clock.set(50_000);
    admitted(limiter.acquire("k", l)).release(); // newest start 50 000
    clock.set(60_000);
    expect(limiter.size).toBe(1); // the 50 000 start is still in the window
    expect(refused(limiter.acquire("k", limits({ runsPerMinute: 1 }))).retryAfterSeconds).toBe(50);
    clock.set(109_999);
    expect(limiter.size).toBe(1);
    clock.set(110_000);
    expect(limiter.size).toBe(0);
  });

  it("drops kept starts when a key's limit becomes Infinity, and forgets it on release", () => {
    const clock = fakeClock(0);
    const limiter = new RunLimiter({ now: clock.now });
    admitted(limiter.acquire("k", limits({ runsPerMinute: 5 }))).release();
    expect(limiter.size).toBe(1);
    admitted(limiter.acquire("k", DEFAULT_LIMITS)).release();
    expect(limiter.size).toBe(0);
    // The expiry entry queued for the old state falls due without harm to a new one.
    admitted(limiter.acquire("k", limits({ concurrentRuns: 1 })));
    clock.set(60_000);
    expect(limiter.size).toBe(1);
    refused(limiter.acquire("k", limits({ concurrentRuns: 1 })));
  });
});

describe("RunLimiter: bad limits", () => {
  it("throws a RangeError naming the limit and the value found", () => {
    const limiter = new RunLimiter({ now: fakeClock().now });
    expect(() => limiter.acquire("k", limits({ concurrentRuns: 0 }))).toThrow(
      new RangeError("limits.concurrentRuns: expected a positive integer or Infinity, found 0"),
    );
    expect(() => limiter.acquire("k", limits({ runsPerMinute: 1.5 }))).toThrow(
      new RangeError("limits.runsPerMinute: expected a positive integer or Infinity, found 1.5"),
    );
    expect(() => limiter.acquire("k", limits({ runsPerMinute: Number.NaN }))).toThrow(/found NaN/);
    expect(limiter.size).toBe(0);
  });
});
