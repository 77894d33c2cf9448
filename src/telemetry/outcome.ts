/**
 * What a run's last event says of how it ended, as attributes: the outcome, the error's code, and
 * the token usage RUN_FINISHED (or RUN_ERROR) reports.
 *
 * @module
 */
import type { Attributes } from "./api.js";
import { ATTR, type RunOutcome } from "./names.js";

/**
 * What a stream counts as it goes, in plain fields, for the run's span and metrics at its end:
 * the only per-event work telemetry asks of a stream.
 */
export interface EventTally {
  /** Events sent so far. */
  events: number;
  /** The event that ended the run (RUN_FINISHED or RUN_ERROR), until a RUN_STARTED opens another. */
  last: unknown;
}

/** A tally at zero. */
export const newTally = (): EventTally => ({ events: 0, last: undefined });

/** How a run ended, and the error's code when it failed. */
export interface Ending {
  outcome: RunOutcome;
  errorType?: string;
}

/**
 * How a run whose last run-ending event was `last` ended: RUN_FINISHED is `success`, or
 * `interrupt` / `cancelled` as its `outcome` says; RUN_ERROR is `error` with its code, or
 * `cancelled` for the code `cancelled`. Without one, `unended` says (the client went away:
 * `cancelled`; the stream ended early: an `error` of type `truncated_run`).
 *
 * @throws Never.
 */
export function endingOf(last: unknown, unended: Ending = { outcome: "error", errorType: "truncated_run" }): Ending {
  if (typeof last !== "object" || last === null) return unended;
  const event = last as { type?: unknown; code?: unknown; outcome?: { type?: unknown } };
  if (event.type === "RUN_FINISHED") {
    const type = event.outcome?.type;
    return { outcome: type === "interrupt" ? "interrupt" : type === "cancelled" ? "cancelled" : "success" };
  }
  if (event.type === "RUN_ERROR") {
    const code = typeof event.code === "string" && event.code !== "" ? event.code : "run_error";
    return code === "cancelled" ? { outcome: "cancelled" } : { outcome: "error", errorType: code };
  }
  return unended;
}

/**
 * The GenAI usage attributes of a run-ending event's `usage` (summed over its entries), with the
 * provider and model when a single entry names them; empty without usage.
 *
 * @throws Never.
 */
export function usageAttributes(last: unknown): Attributes {
  const usage = (last as { usage?: unknown } | null | undefined)?.usage;
  if (!Array.isArray(usage) || usage.length === 0) return {};
  let input = 0;
  let output = 0;
  let counted = false;
  for (const entry of usage as { inputTokens?: unknown; outputTokens?: unknown }[]) {
    if (typeof entry?.inputTokens === "number") (input += entry.inputTokens), (counted = true);
    if (typeof entry?.outputTokens === "number") (output += entry.outputTokens), (counted = true);
  }
  const attributes: Attributes = counted ? { [ATTR.inputTokens]: input, [ATTR.outputTokens]: output } : {};
  if (usage.length === 1) {
    const { provider, model } = usage[0] as { provider?: unknown; model?: unknown };
    if (typeof provider === "string") attributes[ATTR.provider] = provider;
    if (typeof model === "string") attributes[ATTR.model] = model;
  }
  return attributes;
}
