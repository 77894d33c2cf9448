/**
 * What a relayed run's record and the metrics learn as it goes: how many events, how many bytes,
 * and how it ended.
 *
 * @module
 */
import { AguiWireError } from "../util/index.js";
import type { AguiEvent, AguiEventInput, TokenUsage } from "../model/index.js";

/** A run's count so far. */
export interface RunTally {
  outcome: string;
  events: number;
  bytes: number;
  /** The token usage the run's RUN_FINISHED or RUN_ERROR reported, when it did. */
  usage?: readonly TokenUsage[];
}

/** The outcome a run has while none of its ends has come: what it is if it stops now. */
export const UNFINISHED = "client_gone";

/**
 * The reason a run's stop controller is aborted with, whatever stopped it (the client leaving, the
 * deadline, the stream's end): one value, since an abort without a reason makes a DOMException,
 * stack and all, on every run, and nothing reads the reason.
 */
export const STOPPED = new AguiWireError("aborted", "the proxied run was stopped");

/**
 * Counts an event passed on to the client, and what it says of the run's end: RUN_FINISHED is
 * `finished`, RUN_ERROR is `failed` (the relay's own code) or `run_error` (the agent's); the token
 * usage either reports is kept.
 *
 * @throws Never.
 */
export function note(tally: RunTally, event: AguiEvent | AguiEventInput, failed?: string): void {
  tally.events++;
  if (event.type === "RUN_FINISHED") tally.outcome = "finished";
  else if (event.type === "RUN_ERROR") tally.outcome = failed ?? "run_error";
  else if (event.type === "RUN_STARTED") tally.outcome = UNFINISHED;
  else return;
  const usage = (event as { usage?: readonly TokenUsage[] }).usage;
  if (usage !== undefined) tally.usage = usage;
  else delete tally.usage;
}

/** The part of a run's record that its tally says: events, bytes, outcome, and usage when reported. */
export function tallied(tally: RunTally): { events: number; bytes: number; outcome: string; usage?: readonly TokenUsage[] } {
  const { events, bytes, outcome, usage } = tally;
  return usage === undefined ? { events, bytes, outcome } : { events, bytes, outcome, usage };
}

/**
 * Whether the upstream's run has ended by its own RUN_FINISHED or RUN_ERROR (not the relay's), so
 * that nothing of it is left to cancel.
 *
 * @throws Never.
 */
export function endedUpstream(tally: RunTally): boolean {
  return tally.outcome === "finished" || tally.outcome === "run_error";
}

/** A run's time limit: once it passes, `stop` is aborted and `passed` turns true. */
export interface RunDeadline {
  readonly passed: boolean;
  /** Stops the timer (the run ended first). */
  clear(): void;
  /**
   * The RUN_ERROR that ends the run because the limit passed, counted in `tally`; none when the
   * limit has not passed or the run had ended already.
   */
  event(tally: RunTally): AguiEvent | undefined;
}

/**
 * Starts the clock of a run limited to `ms` (Infinity: no limit).
 *
 * @throws Never.
 */
export function runDeadline(ms: number, stop: AbortController): RunDeadline {
  let passed = false;
  const timer = Number.isFinite(ms)
    ? setTimeout(() => {
        passed = true;
        stop.abort(STOPPED);
      }, ms)
    : undefined;
  return {
    get passed() {
      return passed;
    },
    clear: () => clearTimeout(timer),
    event(tally) {
      if (!passed || tally.outcome !== UNFINISHED) return undefined;
      tally.outcome = "timeout";
      tally.events++;
      return { type: "RUN_ERROR", code: "timeout", message: `the run took longer than ${ms} ms` };
    },
  };
}
