/**
 * Interrupts: the open questions a run can end with (RUN_FINISHED with outcome `interrupt`), and
 * the `resume` entries that answer them in the next run.
 *
 * @module
 */
import { AguiWireError } from "../util/index.js";
import type { Interrupt, JsonObject, JsonValue, ResumeEntry } from "../model/index.js";

/** Whether `interrupt` has an `expiresAt` at or before `now`. Never throws. */
export function isInterruptExpired(interrupt: Interrupt, now: Date = new Date()): boolean {
  return interrupt.expiresAt !== undefined && new Date(interrupt.expiresAt) <= now;
}

/** One answer to an interrupt, for {@link buildResumeArray}. */
export type ResumeResponse =
  | { status: "resolved"; payload?: JsonValue; metadata?: JsonObject }
  | { status: "cancelled"; metadata?: JsonObject };

/**
 * The `resume` entries answering `interrupts`, in their order, from answers keyed by interrupt id.
 *
 * @throws {AguiWireError} `pending_interrupts` when an interrupt has no answer, or an answer names
 *   no open interrupt.
 */
export function buildResumeArray(interrupts: readonly Interrupt[], responses: Readonly<Record<string, ResumeResponse>>): ResumeEntry[] {
  const open = new Set(interrupts.map((i) => i.id));
  const missing = interrupts.filter((i) => !Object.hasOwn(responses, i.id)).map((i) => i.id);
  if (missing.length > 0) throw new AguiWireError("pending_interrupts", `no answer for the open interrupt(s) ${missing.join(", ")}`);
  const unknown = Object.keys(responses).filter((id) => !open.has(id));
  if (unknown.length > 0) throw new AguiWireError("pending_interrupts", `answers for interrupt(s) that are not open: ${unknown.join(", ")}`);
  return interrupts.map((i) => {
    const r = responses[i.id]!;
    const entry: ResumeEntry = { interruptId: i.id, status: r.status };
    if (r.status === "resolved" && r.payload !== undefined && r.payload !== null) entry.payload = r.payload;
    if (r.metadata !== undefined) entry.metadata = r.metadata;
    return entry;
  });
}

/**
 * Refuses a run that leaves open interrupts unanswered, as `@ag-ui/client` 1.0 does: every
 * pending interrupt needs a `resume` entry, and an expired one can only be cancelled.
 *
 * @throws {AguiWireError} `pending_interrupts`, with theirs' wording.
 */
export function checkResume(pending: readonly Interrupt[], resume: readonly ResumeEntry[] | undefined): void {
  if (pending.length === 0) return;
  // A few entries each: scanning them costs less than a set of ids.
  const answerTo = (id: string) => resume?.find((r) => r.interruptId === id);
  const uncovered = pending.map((i) => i.id).filter((id) => !answerTo(id));
  if (uncovered.length > 0) {
    throw new AguiWireError("pending_interrupts", `Thread has ${uncovered.length} pending interrupt(s) not addressed by resume: ${uncovered.join(", ")}`);
  }
  for (const interrupt of pending) {
    if (isInterruptExpired(interrupt) && answerTo(interrupt.id)?.status !== "cancelled") {
      throw new AguiWireError("pending_interrupts", `Interrupt ${interrupt.id} expired at ${interrupt.expiresAt} and can no longer be answered. Cancel it to continue the thread.`);
    }
  }
}
