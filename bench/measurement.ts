/**
 * What a timed task is and what measuring it gives: the types the runner (suite.ts), the tables
 * (format.ts) and the chart (chart.ts) share, kept apart from all three so that none of them
 * imports another's module for a type.
 */

/** Who wrote the code a task runs. "ours" and "ours-sse" are this package. */
export type Impl = "ours" | "ours-sse" | "peer";

/** One task of a group: a function that processes `events` events carried in `bytes` bytes. */
export interface TaskSpec {
  /** Stable key, unique within its group; values are named `<suite>/<group id>/<key>`. */
  key: string;
  /** Shown in tables and the chart. */
  label: string;
  impl: Impl;
  /** Whether the task checks events against a schema (ours always does). */
  validates: boolean;
  /** Events processed by one call of `fn`. */
  events: number;
  /** Bytes produced (encode) or consumed (decode) by one call of `fn`. */
  bytes: number;
  fn: () => unknown;
}

/** One timed task's outcome: the task's description, without its function, and its timings. */
export interface Measurement extends Omit<TaskSpec, "fn"> {
  id: string;
  group: string;
  /** Median time of one call, ms: the base of the rates. */
  medianMs: number;
  /** Mean time of one call, ms. */
  meanMs: number;
  /** Relative margin of error of the mean time, percent. */
  rme: number;
  samples: number;
  eventsPerSec: number;
  mbPerSec: number;
  /** Events/s relative to the group's reference task. */
  vsReference: number;
  /** Events/s relative to our SSE task of the same group (binary tasks only). */
  vsSse?: number;
  error?: string;
}
