/**
 * The error of events out of the order AG-UI requires, and the names of the rules, shared by the
 * verifier and the chunk expansion.
 *
 * @module
 */
import { AguiWireError } from "../util/index.js";

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
 * - `reasoning-already-started` / `reasoning-not-started`: likewise for a reasoning span,
 *   REASONING_START / REASONING_END by `messageId`.
 * - `reasoning-message-already-started` / `reasoning-message-not-started`: likewise for a
 *   reasoning message, REASONING_MESSAGE_START / _CONTENT / _END by `messageId` (spans and
 *   reasoning messages are tracked apart: one `messageId` may name both at once).
 * - `step-already-started` / `step-not-started`: likewise for STEP_STARTED / _FINISHED by
 *   `stepName`, per owner: the agent's steps and each subagent's (`subagentRunId`) are apart, and a
 *   step is finished by whoever started it.
 * - `subagent-already-started`: a SUBAGENT_STARTED for a `subagentRunId` that is active.
 * - `subagent-reused`: a SUBAGENT_STARTED for a `subagentRunId` that already finished (or failed)
 *   in this run: a subagent id names one invocation.
 * - `subagent-parent-not-started`: a SUBAGENT_STARTED whose `parentSubagentRunId` has not been
 *   started in this run.
 * - `subagent-not-started`: a SUBAGENT_FINISHED or SUBAGENT_ERROR for a `subagentRunId` that is
 *   not active.
 * - `subagent-mismatch`: an event that carries a `subagentRunId` other than the owner of what it
 *   refers to: the message, tool call, reasoning message or activity it continues (the owner is
 *   whoever opened it first in the run, or what a MESSAGES_SNAPSHOT, RUN_STARTED's `input` or a
 *   TOOL_CALL_RESULT said), a TOOL_CALL_START's `parentMessageId`, or a REASONING_ENCRYPTED_VALUE's
 *   `entityId`. An event without `subagentRunId` inherits its owner's and never breaks this rule.
 * - `chunk-incomplete`: a TEXT_MESSAGE_CHUNK or REASONING_MESSAGE_CHUNK that starts a new message
 *   without `messageId`, or a TOOL_CALL_CHUNK that starts a new tool call without `toolCallId` or
 *   `toolCallName`.
 * - `chunk-ambiguous`: a chunk with neither an id nor a `subagentRunId` while several owners each
 *   have a chunked item of its kind open, so that it could continue any of them.
 * - `chunk-mismatch`: a chunk that continues an open chunked item but says something else about
 *   it: another `subagentRunId`, `role`, `name`, `toolCallName` or `parentMessageId`.
 * - `run-finished-with-open-items`: a RUN_FINISHED while a step, message, reasoning span or
 *   message, tool call or subagent is open.
 */
export type ProtocolRule =
  | "run-started-first"
  | "run-already-started"
  | "message-already-started"
  | "message-not-started"
  | "tool-call-already-started"
  | "tool-call-not-started"
  | "reasoning-already-started"
  | "reasoning-not-started"
  | "reasoning-message-already-started"
  | "reasoning-message-not-started"
  | "step-already-started"
  | "step-not-started"
  | "subagent-already-started"
  | "subagent-reused"
  | "subagent-parent-not-started"
  | "subagent-not-started"
  | "subagent-mismatch"
  | "chunk-incomplete"
  | "chunk-ambiguous"
  | "chunk-mismatch"
  | "run-finished-with-open-items";

/** Events out of the order the protocol requires (code `protocol_violation`). */
export class ProtocolViolationError extends AguiWireError {
  // Fields `declare`d here are each assigned by the constructor: a class field would only add a
  // definition to every bundle (the properties are the same own properties either way).
  /** Position of the offending event in the stream, from 0. */
  declare readonly index: number;
  /** The rule the event breaks. */
  declare readonly rule: ProtocolRule;

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
 * The error for event #`index` (of type `type`) breaking `rule`, in the one wording of every
 * violation: which event, the rule, what was expected, what was found (and `via`, what the event
 * was taken as, when that matters).
 *
 * @throws Never; it returns the error.
 */
export function violation(index: number, type: string, rule: ProtocolRule, expected: string, found: string, via = ""): ProtocolViolationError {
  return new ProtocolViolationError(index, rule, `event #${index} (${type}) breaks ${rule}: expected ${expected}, found ${found}${via}`);
}

/** Names an item's owner (a `subagentRunId`, or undefined for the agent) for a message. @throws Never. */
export function who(owner: string | undefined): string {
  return owner === undefined ? "the agent" : `subagent ${JSON.stringify(owner)}`;
}
