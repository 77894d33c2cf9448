/**
 * Small helpers of `@ag-ui/client` 1.0 that need no streams: ids, copies, a run's outcome, and the
 * test for a known event type.
 *
 * @module
 */
import { isEventType, type BaseEvent, type RunFinishedEvent, type RunFinishedOutcome } from "../model/index.js";
import type { UnrecognizedEvent } from "./ag-ui-types.js";
import { randomId } from "./input.js";

/**
 * A random UUID (version 4), as theirs: `crypto.randomUUID` where there is one, else one made from
 * `crypto.getRandomValues` (or, lacking both, `Math.random`). Never throws.
 */
export function randomUUID(): string {
  return randomId();
}

/**
 * A deep copy of `value`: `structuredClone` where the platform has it (and so throws its
 * `DataCloneError` for a function or a symbol), else a JSON round trip, else (when that throws, as
 * on a cycle) a shallow copy that keeps arrays arrays.
 */
export const structuredClone_ = <T>(value: T): T => {
  if (typeof structuredClone === "function") return structuredClone(value);
  // Platforms without structuredClone (older React Native): the same fallbacks as theirs.
  try {
    return JSON.parse(JSON.stringify(value)) as T;
  } catch {
    return (Array.isArray(value) ? [...value] : { ...value }) as T;
  }
};

/**
 * The outcome a RUN_FINISHED event states, `undefined` when it states none (which means success).
 * Never throws.
 */
export function getRunOutcome(event: RunFinishedEvent): RunFinishedOutcome | undefined {
  return event.outcome;
}

/**
 * Whether an event's `type` is one of the 31 the protocol knows, narrowing it to a known event.
 * Never throws for an object.
 */
export function isRecognizedEvent(event: BaseEvent | UnrecognizedEvent): event is BaseEvent {
  return isEventType(event.type);
}
