/**
 * Checking that a stream of events follows the protocol's order: runs open and close, and within
 * a run, text messages, tool calls and steps open and close by id or name.
 *
 * @module
 */
import { AguiWireError } from "./errors.js";
import type { AguiEvent } from "./model/events.js";

/**
 * The rule a {@link ProtocolViolationError} names, stable across versions:
 *
 * - `run-started-first`: the first event of a stream, and the first after a run ended, must be
 *   RUN_STARTED, or a lone RUN_ERROR: the proper end of a run that failed before it started (what a
 *   server sends when its agent throws before its first event). As in `@ag-ui/client` 1.0, a
 *   RUN_ERROR right after another RUN_ERROR breaks this rule.
 * - `run-already-started`: a RUN_STARTED while a run is open (runs do not nest).
 * - `message-already-started` / `message-not-started`: a TEXT_MESSAGE_START for a `messageId`
 *   that is open; a TEXT_MESSAGE_CONTENT or _END for one that is not.
 * - `tool-call-already-started` / `tool-call-not-started`: likewise for TOOL_CALL_START / _ARGS /
 *   _END by `toolCallId`.
 * - `step-already-started` / `step-not-started`: likewise for STEP_STARTED / _FINISHED by
 *   `stepName`.
 * - `run-finished-with-open-items`: a RUN_FINISHED while a message, tool call or step is open.
 */
export type ProtocolRule =
  | "run-started-first"
  | "run-already-started"
  | "message-already-started"
  | "message-not-started"
  | "tool-call-already-started"
  | "tool-call-not-started"
  | "step-already-started"
  | "step-not-started"
  | "run-finished-with-open-items";

/** Events out of the order the protocol requires (code `protocol_violation`). */
export class ProtocolViolationError extends AguiWireError {
  /** Position of the offending event in the stream, from 0. */
  readonly index: number;
  /** The rule the event breaks. */
  readonly rule: ProtocolRule;

  /**
   * @param index - Position of the offending event, from 0.
   * @param rule - The rule it breaks.
   * @param message - What was expected and what was found.
   */
  constructor(index: number, rule: ProtocolRule, message: string) {
    super("protocol_violation", message);
    this.index = index;
    this.rule = rule;
    this.name = "ProtocolViolationError";
  }
}

/**
 * Whether an event of `type` may come where no run is open (first in a stream, or after a run
 * ended): a RUN_STARTED; or a lone RUN_ERROR, the end of a run that failed before it started,
 * unless the run before it ended with RUN_ERROR too (as in `@ag-ui/client` 1.0). The server holds
 * an agent's events to the same rule after the agent ended its run.
 *
 * @param afterRunError - The run before ended with RUN_ERROR.
 * @throws Never.
 */
export function mayComeBetweenRuns(type: unknown, afterRunError: boolean): boolean {
  return type === "RUN_STARTED" || (type === "RUN_ERROR" && !afterRunError);
}

/** Lists what is still open, for the message of a RUN_FINISHED that came too early. */
function describeOpen(kind: string, ids: Set<string>): string[] {
  return ids.size ? [`${kind} ${[...ids].map((id) => JSON.stringify(id)).join(", ")}`] : [];
}

/**
 * A push-style checker of event order: feed it each event of a stream with {@link push}, then
 * call {@link end} when the stream ends. A stream may hold several runs one after the other.
 * Different messages, tool calls and steps may interleave freely. A RUN_ERROR ends a run whatever
 * is open in it; outside a run (first in the stream, or after RUN_FINISHED) a RUN_ERROR on its own
 * is a whole run, one that failed before it started.
 *
 * Errors are final in effect: after a violation the verifier's state no longer describes a valid
 * stream, so stop using it.
 */
export class EventVerifier {
  #index = 0;
  #inRun = false;
  #sawRun = false;
  /** The last run ended with RUN_ERROR: a second one in a row is not another run. */
  #endedWithError = false;
  readonly #messages = new Set<string>();
  readonly #toolCalls = new Set<string>();
  readonly #steps = new Set<string>();

  /**
   * Checks the next event of the stream.
   *
   * @throws {ProtocolViolationError} When the event breaks one of the rules of
   *   {@link ProtocolRule}, naming the event's index and the rule.
   */
  push(event: AguiEvent): void {
    const index = this.#index++;
    const fail = (rule: ProtocolRule, what: string): never => {
      throw new ProtocolViolationError(index, rule, `event #${index} (${event.type}) breaks ${rule}: ${what}`);
    };
    if (event.type === "RUN_STARTED") {
      if (this.#inRun) fail("run-already-started", "a run is already open; end it with RUN_FINISHED or RUN_ERROR first");
      this.#inRun = this.#sawRun = true;
      this.#endedWithError = false;
      // A RUN_ERROR may have left things open; they belonged to the run that failed.
      this.#messages.clear();
      this.#toolCalls.clear();
      this.#steps.clear();
      return;
    }
    if (!this.#inRun) {
      // A lone RUN_ERROR is a run that failed before it started: our server sends one when its
      // agent throws before its first event, and @ag-ui/client accepts it too.
      if (mayComeBetweenRuns(event.type, this.#endedWithError)) {
        this.#sawRun = this.#endedWithError = true;
        return;
      }
      fail(
        "run-started-first",
        !this.#sawRun
          ? "expected RUN_STARTED (or a lone RUN_ERROR) as the first event"
          : this.#endedWithError
            ? "expected RUN_STARTED after the run ended with RUN_ERROR, found another event"
            : "expected RUN_STARTED (or a lone RUN_ERROR) after the run ended, found another event",
      );
    }
    switch (event.type) {
      case "TEXT_MESSAGE_START":
        return this.#open(this.#messages, event.messageId, "message", "messageId", fail);
      case "TEXT_MESSAGE_CONTENT":
        return this.#expectOpen(this.#messages, event.messageId, "message", "messageId", fail);
      case "TEXT_MESSAGE_END":
        this.#expectOpen(this.#messages, event.messageId, "message", "messageId", fail);
        this.#messages.delete(event.messageId);
        return;
      case "TOOL_CALL_START":
        return this.#open(this.#toolCalls, event.toolCallId, "tool-call", "toolCallId", fail);
      case "TOOL_CALL_ARGS":
        return this.#expectOpen(this.#toolCalls, event.toolCallId, "tool-call", "toolCallId", fail);
      case "TOOL_CALL_END":
        this.#expectOpen(this.#toolCalls, event.toolCallId, "tool-call", "toolCallId", fail);
        this.#toolCalls.delete(event.toolCallId);
        return;
      case "STEP_STARTED":
        return this.#open(this.#steps, event.stepName, "step", "stepName", fail);
      case "STEP_FINISHED":
        this.#expectOpen(this.#steps, event.stepName, "step", "stepName", fail);
        this.#steps.delete(event.stepName);
        return;
      case "RUN_FINISHED": {
        const open = [
          ...describeOpen("messages", this.#messages),
          ...describeOpen("tool calls", this.#toolCalls),
          ...describeOpen("steps", this.#steps),
        ];
        if (open.length) fail("run-finished-with-open-items", `expected every message, tool call and step closed, found open ${open.join("; ")}`);
        this.#inRun = false;
        return;
      }
      case "RUN_ERROR":
        this.#inRun = false;
        this.#endedWithError = true;
        return;
    }
  }

  /**
   * Ends the stream.
   *
   * @throws {AguiWireError} `truncated_stream` when the stream held no run at all (a lone RUN_ERROR
   *   counts as a run), or its last run has neither RUN_FINISHED nor RUN_ERROR.
   */
  end(): void {
    if (this.#inRun) {
      throw new AguiWireError("truncated_stream", `the event stream ended inside a run, after ${this.#index} events: expected RUN_FINISHED or RUN_ERROR`);
    }
    if (!this.#sawRun) throw new AguiWireError("truncated_stream", "the event stream ended without any run: expected RUN_STARTED or RUN_ERROR");
  }

  #open(ids: Set<string>, id: string, kind: "message" | "tool-call" | "step", field: string, fail: (rule: ProtocolRule, what: string) => never): void {
    if (ids.has(id)) fail(`${kind}-already-started`, `${field} ${JSON.stringify(id)} is already open`);
    ids.add(id);
  }

  #expectOpen(ids: Set<string>, id: string, kind: "message" | "tool-call" | "step", field: string, fail: (rule: ProtocolRule, what: string) => never): void {
    if (!ids.has(id)) fail(`${kind}-not-started`, `${field} ${JSON.stringify(id)} is not open`);
  }
}

/**
 * Passes events through unchanged while checking their order with an {@link EventVerifier}.
 * Stopping early (a `break`) returns the source's iterator; a violation does too, before the
 * error is thrown.
 *
 * @param events - The events, validated (from a decoder or `parseEvent`).
 * @returns The same events, in order.
 * @throws {ProtocolViolationError} (during iteration) at the first event out of order.
 * @throws {AguiWireError} (during iteration) `truncated_stream` when the source ends inside a run
 *   or without any; and whatever the source throws, unchanged.
 */
export async function* verifyEvents(events: AsyncIterable<AguiEvent>): AsyncGenerator<AguiEvent, void, undefined> {
  const verifier = new EventVerifier();
  for await (const event of events) {
    verifier.push(event);
    yield event;
  }
  verifier.end();
}
