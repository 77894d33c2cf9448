/**
 * Checking that a stream of events follows the order AG-UI 1.0 requires: runs open and close, and
 * within a run, text messages, tool calls, reasoning, steps and subagents open and close by id,
 * each attributed to the same subagent as what opened it. The rules are those of `@ag-ui/client`
 * 1.0's `verifyEvents`, applied as a 1.0 client applies them: after its chunk transform.
 *
 * @module
 */
import { AguiWireError } from "./errors.js";
import type { AguiEvent } from "./model/events.js";
import type { Message } from "./model/messages.js";

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

/** Who an item belongs to: a subagent invocation's `subagentRunId`, or undefined for the agent. */
type Owner = string | undefined;

/** The three kinds of chunk event, by the item they stand for. */
type ChunkKind = "text" | "tool" | "reasoning";

/**
 * A chunked item a 1.0 client holds open: the chunk transform of `@ag-ui/client` 1.0 turns the
 * first chunk of an item into its START event and closes the item (its END event) when the next
 * item of the same owner begins, or at the end of the run.
 */
interface ChunkStream {
  readonly kind: ChunkKind;
  readonly id: string;
  /** The `subagentRunId` of the chunk that opened it, also its key among the open streams. */
  readonly owner: Owner;
  readonly role?: string;
  readonly name?: string;
  readonly toolCallName?: string;
  readonly parentMessageId?: string;
}

/** One kind of item that opens and closes by id: what is open, and who owns each id of the run. */
interface Tracked {
  readonly open: Set<string>;
  readonly owners: Map<string, Owner>;
  /** The id field, for messages. */
  readonly field: string;
  /** What the item is called, for messages. */
  readonly noun: string;
  readonly opener: string;
  readonly closer: string;
  readonly alreadyStarted: ProtocolRule;
  readonly notStarted: ProtocolRule;
}

/** Names an owner for a message. */
function ownerName(owner: Owner): string {
  return owner === undefined ? "the parent agent (no subagentRunId)" : `subagent ${JSON.stringify(owner)}`;
}

/** Lists what is still open, for the message of a RUN_FINISHED that came too early. */
function describeOpen(kind: string, ids: Iterable<string>, quote = true): string[] {
  const list = [...ids].map((id) => (quote ? JSON.stringify(id) : id));
  return list.length ? [`${kind} ${list.join(", ")}`] : [];
}

/**
 * The `subagentRunId` an event carries, if its type has one. (1.0's verifier also refuses
 * `subagentRunId: null` and the other nulls of subagent events and interrupts; our model never lets
 * a null through those optional strings, so there is nothing left to check here.)
 */
function ownerOf(event: AguiEvent): Owner {
  return "subagentRunId" in event ? event.subagentRunId : undefined;
}

/** The START, content and END event types a chunk of each kind stands for, for messages. */
const CHUNK_EVENTS: Readonly<Record<ChunkKind, readonly [chunk: string, start: string, content: string, end: string, field: string]>> = {
  text: ["TEXT_MESSAGE_CHUNK", "TEXT_MESSAGE_START", "TEXT_MESSAGE_CONTENT", "TEXT_MESSAGE_END", "messageId"],
  tool: ["TOOL_CALL_CHUNK", "TOOL_CALL_START", "TOOL_CALL_ARGS", "TOOL_CALL_END", "toolCallId"],
  reasoning: ["REASONING_MESSAGE_CHUNK", "REASONING_MESSAGE_START", "REASONING_MESSAGE_CONTENT", "REASONING_MESSAGE_END", "messageId"],
};

/**
 * A push-style checker of event order: feed it each event of a stream with {@link push}, then
 * call {@link end} when the stream ends. A stream may hold several runs one after the other.
 * Different messages, tool calls, reasoning, steps and subagents may interleave freely. A
 * RUN_ERROR ends a run whatever is open in it; outside a run (first in the stream, or after
 * RUN_FINISHED) a RUN_ERROR on its own is a whole run, one that failed before it started.
 *
 * It accepts exactly the streams `@ag-ui/client` 1.0 accepts (its `verifyEvents` after its chunk
 * transform, as its agents apply them), and also requires at {@link end} that the last run ended.
 * Chunk events (TEXT_MESSAGE_CHUNK, TOOL_CALL_CHUNK, REASONING_MESSAGE_CHUNK) are checked as the
 * START, content and END events a 1.0 client turns them into: a chunk opens its item when no
 * chunked item of its owner is open (or another one is), and the item closes when the next event
 * of that owner that is not a chunk of it comes, or the run ends.
 *
 * Each event costs O(1) work. Memory: what is open, plus the owner of every message, tool call,
 * reasoning and activity id and every subagent id seen in the current run (the owner rules need
 * them after the item closed, as 1.0's do), forgotten when the next run starts.
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

  /** The event being checked, and its index, for messages. */
  #event: AguiEvent | undefined;
  #at = 0;
  /** Set while checking an event a 1.0 client derives from a chunk: says which, for messages. */
  #via: string | undefined;

  readonly #text = EventVerifier.#tracked("messageId", "text message", "TEXT_MESSAGE_START", "TEXT_MESSAGE_END", "message-already-started", "message-not-started");
  readonly #toolCalls = EventVerifier.#tracked("toolCallId", "tool call", "TOOL_CALL_START", "TOOL_CALL_END", "tool-call-already-started", "tool-call-not-started");
  // Reasoning spans and reasoning messages are open apart but share their owners, as in 1.0.
  readonly #reasoningMessages = EventVerifier.#tracked("messageId", "reasoning message", "REASONING_MESSAGE_START", "REASONING_MESSAGE_END", "reasoning-message-already-started", "reasoning-message-not-started");
  readonly #reasoningSpans = EventVerifier.#tracked("messageId", "reasoning span", "REASONING_START", "REASONING_END", "reasoning-already-started", "reasoning-not-started", this.#reasoningMessages.owners);
  /** Owners of activity messages (ACTIVITY_SNAPSHOT); they never close. */
  readonly #activityOwners = new Map<string, Owner>();

  /** Open steps, by owner then name, and how many in all (so RUN_FINISHED checks in O(1)). */
  readonly #steps = new Map<Owner, Set<string>>();
  #openSteps = 0;

  readonly #activeSubagents = new Set<string>();
  readonly #finishedSubagents = new Set<string>();

  /** The open chunked items, by owner: one per owner at most. */
  readonly #chunkStreams = new Map<Owner, ChunkStream>();
  /** The owner of each open chunked item, by kind then id. */
  readonly #chunkOwners: Record<ChunkKind, Map<string, Owner>> = { text: new Map(), tool: new Map(), reasoning: new Map() };

  static #tracked(
    field: string,
    noun: string,
    opener: string,
    closer: string,
    alreadyStarted: ProtocolRule,
    notStarted: ProtocolRule,
    owners = new Map<string, Owner>(),
  ): Tracked {
    return { open: new Set(), owners, field, noun, opener, closer, alreadyStarted, notStarted };
  }

  /**
   * Checks the next event of the stream.
   *
   * @throws {ProtocolViolationError} When the event breaks one of the rules of
   *   {@link ProtocolRule}, naming the event's index and the rule.
   */
  push(event: AguiEvent): void {
    this.#at = this.#index++;
    this.#event = event;
    this.#via = undefined;
    if (event.type === "RUN_STARTED") {
      if (this.#inRun) this.#fail("run-already-started", "a run is already open; end it with RUN_FINISHED or RUN_ERROR first");
      this.#startRun();
      // Ids the request's messages hold belong to their owners for the whole run.
      if (event.input) this.#learn(event.input.messages, false);
      return;
    }
    if (!this.#inRun) {
      // A lone RUN_ERROR is a run that failed before it started: our server sends one when its
      // agent throws before its first event, and @ag-ui/client accepts it too.
      if (mayComeBetweenRuns(event.type, this.#endedWithError)) {
        this.#sawRun = this.#endedWithError = true;
        return;
      }
      this.#fail(
        "run-started-first",
        !this.#sawRun
          ? "expected RUN_STARTED (or a lone RUN_ERROR) as the first event"
          : this.#endedWithError
            ? "expected RUN_STARTED after the run ended with RUN_ERROR, found another event"
            : "expected RUN_STARTED (or a lone RUN_ERROR) after the run ended, found another event",
      );
    }
    switch (event.type) {
      case "TEXT_MESSAGE_CHUNK":
        return this.#chunk("text", event.messageId, event);
      case "TOOL_CALL_CHUNK":
        return this.#chunk("tool", event.toolCallId, event);
      case "REASONING_MESSAGE_CHUNK":
        return this.#chunk("reasoning", event.messageId, event);
      // What closes open chunked items, as 1.0's chunk transform does before passing the event on.
      case "RUN_FINISHED":
      case "RUN_ERROR":
      case "MESSAGES_SNAPSHOT":
        for (const owner of [...this.#chunkStreams.keys()]) this.#closeChunkStream(owner);
        break;
      case "RAW":
      case "ACTIVITY_SNAPSHOT":
      case "ACTIVITY_DELTA":
      case "REASONING_ENCRYPTED_VALUE":
      case "SUBAGENT_STARTED":
        break;
      default:
        // Every other event, SUBAGENT_FINISHED and SUBAGENT_ERROR included, ends its owner's.
        this.#closeChunkStream(ownerOf(event));
    }
    this.#check(event);
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

  #fail(rule: ProtocolRule, what: string): never {
    const via = this.#via === undefined ? "" : ` (${this.#via})`;
    throw new ProtocolViolationError(this.#at, rule, `event #${this.#at} (${this.#event?.type}) breaks ${rule}: ${what}${via}`);
  }

  /** Forgets everything of the run before: a new run starts clean, as in 1.0. */
  #startRun(): void {
    this.#inRun = this.#sawRun = true;
    this.#endedWithError = false;
    for (const tracked of [this.#text, this.#toolCalls, this.#reasoningMessages, this.#reasoningSpans]) {
      tracked.open.clear();
      tracked.owners.clear();
    }
    this.#activityOwners.clear();
    this.#steps.clear();
    this.#openSteps = 0;
    this.#activeSubagents.clear();
    this.#finishedSubagents.clear();
    this.#chunkStreams.clear();
    for (const owners of Object.values(this.#chunkOwners)) owners.clear();
  }

  /** Checks an event (not a chunk) inside a run. */
  #check(event: AguiEvent): void {
    const owner = ownerOf(event);
    switch (event.type) {
      case "TEXT_MESSAGE_START":
        return this.#open(this.#text, event.messageId, owner);
      case "TEXT_MESSAGE_CONTENT":
        return this.#continue(this.#text, event.messageId, owner, false);
      case "TEXT_MESSAGE_END":
        return this.#continue(this.#text, event.messageId, owner, true);
      case "TOOL_CALL_START":
        return this.#openToolCall(event.toolCallId, owner, event.parentMessageId);
      case "TOOL_CALL_ARGS":
        return this.#continue(this.#toolCalls, event.toolCallId, owner, false);
      case "TOOL_CALL_END":
        return this.#continue(this.#toolCalls, event.toolCallId, owner, true);
      case "TOOL_CALL_RESULT":
        // The result is a new tool message: its id now belongs to whoever sent it.
        this.#text.owners.set(event.messageId, owner);
        return;
      case "REASONING_START":
        return this.#open(this.#reasoningSpans, event.messageId, owner);
      case "REASONING_END":
        return this.#continue(this.#reasoningSpans, event.messageId, owner, true);
      case "REASONING_MESSAGE_START":
        return this.#open(this.#reasoningMessages, event.messageId, owner);
      case "REASONING_MESSAGE_CONTENT":
        return this.#continue(this.#reasoningMessages, event.messageId, owner, false);
      case "REASONING_MESSAGE_END":
        return this.#continue(this.#reasoningMessages, event.messageId, owner, true);
      case "REASONING_ENCRYPTED_VALUE": {
        const id = event.entityId;
        if (event.subtype === "tool-call") return this.#checkOwner(this.#toolCalls.owners, id, owner, "tool call", "entityId");
        // A message's entityId may name a text (or tool, user...) message or a reasoning message.
        const owners = this.#text.owners.has(id) ? this.#text.owners : this.#reasoningMessages.owners;
        return this.#checkOwner(owners, id, owner, "message", "entityId");
      }
      case "ACTIVITY_SNAPSHOT":
        // A snapshot that replaces the activity (the default) makes it its sender's.
        if (event.replace !== false || !this.#activityOwners.has(event.messageId)) this.#activityOwners.set(event.messageId, owner);
        return;
      case "ACTIVITY_DELTA":
        return this.#checkOwner(this.#activityOwners, event.messageId, owner, "activity", "messageId");
      case "STEP_STARTED":
        return this.#startStep(event.stepName, owner);
      case "STEP_FINISHED":
        return this.#finishStep(event.stepName, owner);
      case "SUBAGENT_STARTED":
        return this.#startSubagent(event.subagentRunId, event.parentSubagentRunId);
      case "SUBAGENT_FINISHED":
      case "SUBAGENT_ERROR": {
        const id = event.subagentRunId;
        if (!this.#activeSubagents.has(id)) {
          this.#fail("subagent-not-started", `expected an active subagent, found subagentRunId ${JSON.stringify(id)} ${this.#finishedSubagents.has(id) ? "already ended" : "never started"} in this run`);
        }
        this.#activeSubagents.delete(id);
        this.#finishedSubagents.add(id);
        return;
      }
      case "MESSAGES_SNAPSHOT":
        // The snapshot is the truth from now on: its owners replace what was known.
        return this.#learn(event.messages, true);
      case "RUN_FINISHED": {
        const open = [
          ...describeOpen("steps", this.#describeSteps(), false),
          ...describeOpen("text messages", this.#text.open),
          ...describeOpen("reasoning messages", this.#reasoningMessages.open),
          ...describeOpen("reasoning spans", this.#reasoningSpans.open),
          ...describeOpen("tool calls", this.#toolCalls.open),
          ...describeOpen("subagents", this.#activeSubagents),
        ];
        if (open.length) {
          this.#fail("run-finished-with-open-items", `expected every step, message, reasoning span, tool call and subagent closed, found open ${open.join("; ")}`);
        }
        this.#inRun = false;
        return;
      }
      case "RUN_ERROR":
        this.#inRun = false;
        this.#endedWithError = true;
        return;
      default:
        // STATE_SNAPSHOT, STATE_DELTA, RAW and CUSTOM belong to no item. (Chunks never get here.)
        return;
    }
  }

  /** Remembers who owns each message (and each tool call of an assistant message) of a list. */
  #learn(messages: readonly Message[], replace: boolean): void {
    for (const message of messages) {
      const owners =
        message.role === "reasoning" ? this.#reasoningMessages.owners : message.role === "activity" ? this.#activityOwners : this.#text.owners;
      if (replace || !owners.has(message.id)) owners.set(message.id, message.subagentRunId);
      if (message.role !== "assistant" || !message.toolCalls) continue;
      for (const call of message.toolCalls) {
        if (replace || !this.#toolCalls.owners.has(call.id)) this.#toolCalls.owners.set(call.id, message.subagentRunId);
      }
    }
  }

  /** Fails when an event attributed to `owner` refers to an id that belongs to someone else. */
  #checkOwner(owners: Map<string, Owner>, id: string, owner: Owner, noun: string, field: string): void {
    if (owner === undefined || !owners.has(id)) return;
    const expected = owners.get(id);
    if (expected !== owner) {
      this.#fail(
        "subagent-mismatch",
        `the ${noun} with ${field} ${JSON.stringify(id)} belongs to ${ownerName(expected)}: expected its subagentRunId or none, found ${JSON.stringify(owner)}`,
      );
    }
  }

  #open(tracked: Tracked, id: string, owner: Owner): void {
    if (tracked.open.has(id)) {
      this.#fail(tracked.alreadyStarted, `expected a ${tracked.noun} that is not open, found ${tracked.field} ${JSON.stringify(id)} already open; close it with ${tracked.closer} first`);
    }
    this.#checkOwner(tracked.owners, id, owner, tracked.noun, tracked.field);
    tracked.open.add(id);
    if (!tracked.owners.has(id)) tracked.owners.set(id, owner);
  }

  #continue(tracked: Tracked, id: string, owner: Owner, close: boolean): void {
    if (!tracked.open.has(id)) {
      this.#fail(tracked.notStarted, `expected an open ${tracked.noun}, found ${tracked.field} ${JSON.stringify(id)} not open; open it with ${tracked.opener} first`);
    }
    this.#checkOwner(tracked.owners, id, owner, tracked.noun, tracked.field);
    if (close) tracked.open.delete(id);
  }

  /** TOOL_CALL_START: a tool call belongs to the message that carries it, if that one is known. */
  #openToolCall(id: string, owner: Owner, parentMessageId: string | undefined): void {
    const tracked = this.#toolCalls;
    if (tracked.open.has(id)) {
      this.#fail(tracked.alreadyStarted, `expected a tool call that is not open, found toolCallId ${JSON.stringify(id)} already open; close it with TOOL_CALL_END first`);
    }
    const hasParent = parentMessageId !== undefined && this.#text.owners.has(parentMessageId);
    const parentOwner = hasParent ? this.#text.owners.get(parentMessageId) : undefined;
    if (hasParent && owner !== undefined && owner !== parentOwner) {
      this.#fail(
        "subagent-mismatch",
        `the parent message ${JSON.stringify(parentMessageId)} belongs to ${ownerName(parentOwner)}, and a tool call belongs to the message that carries it: expected its subagentRunId or none, found ${JSON.stringify(owner)}`,
      );
    }
    if (tracked.owners.has(id)) {
      this.#checkOwner(tracked.owners, id, owner, "tool call", "toolCallId");
      const known = tracked.owners.get(id);
      if (owner === undefined && hasParent && parentOwner !== known) {
        this.#fail(
          "subagent-mismatch",
          `tool call ${JSON.stringify(id)} belongs to ${ownerName(known)} but its parent message ${JSON.stringify(parentMessageId)} to ${ownerName(parentOwner)}: expected a parent message of the same owner`,
        );
      }
    } else {
      tracked.owners.set(id, owner ?? parentOwner);
    }
    tracked.open.add(id);
  }

  #startStep(name: string, owner: Owner): void {
    let steps = this.#steps.get(owner);
    if (!steps) this.#steps.set(owner, (steps = new Set()));
    if (steps.has(name)) {
      this.#fail("step-already-started", `expected a step that is not open, found stepName ${JSON.stringify(name)} already open for ${ownerName(owner)}; finish it with STEP_FINISHED first`);
    }
    steps.add(name);
    this.#openSteps++;
  }

  #finishStep(name: string, owner: Owner): void {
    const steps = this.#steps.get(owner);
    if (!steps?.has(name)) {
      // Only on the way to an error: look for the owner that has it open, to say so.
      let other: { owner: Owner } | undefined;
      for (const [key, names] of this.#steps) if (key !== owner && names.has(name)) other = { owner: key };
      this.#fail(
        "step-not-started",
        other
          ? `step ${JSON.stringify(name)} is open for ${ownerName(other.owner)}, not for ${ownerName(owner)}: expected STEP_FINISHED from whoever started it`
          : `expected an open step, found stepName ${JSON.stringify(name)} not open for ${ownerName(owner)}; start it with STEP_STARTED first`,
      );
    }
    steps.delete(name);
    if (steps.size === 0) this.#steps.delete(owner);
    this.#openSteps--;
  }

  #describeSteps(): string[] {
    if (this.#openSteps === 0) return [];
    const names: string[] = [];
    for (const [owner, steps] of this.#steps) for (const name of steps) names.push(owner === undefined ? JSON.stringify(name) : `${JSON.stringify(name)} (subagent ${JSON.stringify(owner)})`);
    return names;
  }

  #startSubagent(id: string, parent: string | undefined): void {
    if (this.#activeSubagents.has(id)) {
      this.#fail("subagent-already-started", `expected a new subagentRunId, found ${JSON.stringify(id)} active; end it with SUBAGENT_FINISHED or SUBAGENT_ERROR first`);
    }
    if (this.#finishedSubagents.has(id)) {
      this.#fail("subagent-reused", `expected a new subagentRunId, found ${JSON.stringify(id)}, which already ended in this run: a subagent id names one invocation`);
    }
    if (parent !== undefined && !this.#activeSubagents.has(parent) && !this.#finishedSubagents.has(parent)) {
      this.#fail("subagent-parent-not-started", `expected a parentSubagentRunId started in this run, found ${JSON.stringify(parent)}`);
    }
    this.#activeSubagents.add(id);
  }

  /**
   * A chunk event, as 1.0's chunk transform sees it: which open chunked item it continues, or
   * which it starts (closing the one its owner had open); then the START, content and END events
   * the transform derives from it are checked like any.
   */
  #chunk(
    kind: ChunkKind,
    id: string | undefined,
    chunk: Extract<AguiEvent, { type: "TEXT_MESSAGE_CHUNK" | "TOOL_CALL_CHUNK" | "REASONING_MESSAGE_CHUNK" }>,
  ): void {
    const [type, startType, contentType, , field] = CHUNK_EVENTS[kind];
    const owners = this.#chunkOwners[kind];
    const owner = chunk.subagentRunId;
    // Which owner's chunked item this chunk is about.
    let key: Owner;
    if (id !== undefined) {
      if (owners.has(id)) {
        key = owners.get(id);
        if (owner !== undefined && owner !== key) {
          this.#fail("chunk-mismatch", `the chunked item with ${field} ${JSON.stringify(id)} is open for ${ownerName(key)}: expected its subagentRunId or none, found ${JSON.stringify(owner)}`);
        }
      } else key = owner;
    } else if (owner !== undefined || this.#chunkStreams.get(undefined)?.kind === kind) {
      key = owner;
    } else if (owners.size > 1) {
      this.#fail("chunk-ambiguous", `expected a ${field} or a subagentRunId, found neither while ${owners.size} owners have a ${type} stream open`);
    } else {
      // The only open item of this kind, whoever owns it; or none, and the chunk must start one.
      key = owners.size === 1 ? owners.values().next().value : undefined;
    }
    const open = this.#chunkStreams.get(key);
    let emitted = false;
    let stream: ChunkStream;
    if (open && open.kind === kind && (id === undefined || id === open.id)) {
      stream = open;
      if (chunk.type === "TEXT_MESSAGE_CHUNK") {
        this.#sameAsOpen(stream, "role", chunk.role, stream.role);
        this.#sameAsOpen(stream, "name", chunk.name, stream.name);
      } else if (chunk.type === "TOOL_CALL_CHUNK") {
        this.#sameAsOpen(stream, "toolCallName", chunk.toolCallName, stream.toolCallName);
        this.#sameAsOpen(stream, "parentMessageId", chunk.parentMessageId, stream.parentMessageId);
      }
    } else {
      if (id === undefined) {
        this.#fail("chunk-incomplete", `expected a ${field} on a ${type} that starts a new item, found none${open ? ` (the open chunked item of ${ownerName(key)} is another)` : ""}`);
      }
      if (chunk.type === "TOOL_CALL_CHUNK" && chunk.toolCallName === undefined) {
        this.#fail("chunk-incomplete", `expected a toolCallName on a TOOL_CALL_CHUNK that starts tool call ${JSON.stringify(id)}, found none`);
      }
      this.#closeChunkStream(key);
      stream =
        chunk.type === "TEXT_MESSAGE_CHUNK"
          ? { kind, id, owner, role: chunk.role ?? "assistant", name: chunk.name }
          : chunk.type === "TOOL_CALL_CHUNK"
            ? { kind, id, owner, toolCallName: chunk.toolCallName, parentMessageId: chunk.parentMessageId }
            : { kind, id, owner };
      this.#chunkStreams.set(owner, stream);
      owners.set(id, owner);
      this.#via = `a 1.0 client turns this ${type} into a ${startType} of ${field} ${JSON.stringify(id)}`;
      if (kind === "tool") this.#openToolCall(id, owner, stream.parentMessageId);
      else this.#open(kind === "text" ? this.#text : this.#reasoningMessages, id, owner);
      emitted = true;
    }
    // 1.0 derives a content event from a chunk with a delta (or a rawEvent), and from a chunk that
    // only carries metadata; a bare continuation derives nothing.
    if (chunk.delta !== undefined || chunk.rawEvent !== undefined || (!emitted && chunk.metadata !== undefined)) {
      this.#via = `a 1.0 client turns this ${type} into a ${contentType} of ${field} ${JSON.stringify(stream.id)}`;
      const tracked = kind === "text" ? this.#text : kind === "tool" ? this.#toolCalls : this.#reasoningMessages;
      this.#continue(tracked, stream.id, owner ?? stream.owner, false);
    }
    this.#via = undefined;
  }

  /** A continuing chunk may repeat what opened its item, but not contradict it. */
  #sameAsOpen(stream: ChunkStream, field: string, found: string | undefined, expected: string | undefined): void {
    if (found !== undefined && found !== expected) {
      const id = JSON.stringify(stream.id);
      this.#fail("chunk-mismatch", `the chunked item ${id} is open with ${field} ${expected === undefined ? "absent" : JSON.stringify(expected)}: expected that or none, found ${JSON.stringify(found)}`);
    }
  }

  /** Closes the chunked item `owner` has open, if any: checks the END event 1.0 derives. */
  #closeChunkStream(owner: Owner): void {
    const stream = this.#chunkStreams.get(owner);
    if (!stream) return;
    this.#chunkStreams.delete(owner);
    this.#chunkOwners[stream.kind].delete(stream.id);
    const [type, , , endType, field] = CHUNK_EVENTS[stream.kind];
    const previous = this.#via;
    this.#via = `it ends the open ${type} stream of ${field} ${JSON.stringify(stream.id)}, which a 1.0 client turns into a ${endType}`;
    const tracked = stream.kind === "text" ? this.#text : stream.kind === "tool" ? this.#toolCalls : this.#reasoningMessages;
    this.#continue(tracked, stream.id, stream.owner, true);
    this.#via = previous;
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
