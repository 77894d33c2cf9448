/**
 * What a relayed run's record and the metrics learn as it goes: how many events, how many bytes,
 * and how it ended.
 *
 * @module
 */
import type { AguiEvent, AguiEventInput } from "../model/events.js";

/** A run's count so far. */
export interface RunTally {
  outcome: string;
  events: number;
  bytes: number;
}

/** The outcome a run has while none of its ends has come: what it is if it stops now. */
export const UNFINISHED = "client_gone";

/**
 * Counts an event passed on to the client, and what it says of the run's end: RUN_FINISHED is
 * `finished`, RUN_ERROR is `failed` (the relay's own code) or `run_error` (the agent's).
 *
 * @throws Never.
 */
export function note(tally: RunTally, event: AguiEvent | AguiEventInput, failed?: string): void {
  tally.events++;
  if (event.type === "RUN_FINISHED") tally.outcome = "finished";
  else if (event.type === "RUN_ERROR") tally.outcome = failed ?? "run_error";
  else if (event.type === "RUN_STARTED") tally.outcome = UNFINISHED;
}

/**
 * The RUN_ERROR that ends a run which took longer than `ms`, counted; none when the run had ended
 * already.
 *
 * @throws Never.
 */
export function timeoutEvent(tally: RunTally, ms: number): AguiEvent | undefined {
  if (tally.outcome !== UNFINISHED) return undefined;
  tally.outcome = "timeout";
  tally.events++;
  return { type: "RUN_ERROR", code: "timeout", message: `the run took longer than ${ms} ms` };
}
