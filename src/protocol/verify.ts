/**
 * Checking that a stream of events follows the order AG-UI 1.0 requires: runs open and close, and
 * within a run, text messages, tool calls, reasoning, steps and subagents open and close by id,
 * each attributed to the same subagent as what opened it. The rules are those of `@ag-ui/client`
 * 1.0's `verifyEvents`, applied as a 1.0 client applies them: after its chunk transform.
 *
 * @module
 */
import { ChunkExpander } from "./chunks.js";
import { AguiWireError } from "../util/index.js";
import type { AguiEvent } from "../model/index.js";
import type { Message } from "../model/index.js";

import { ProtocolViolationError, type ProtocolRule, violation, who } from "./protocol-violation.js";
import { ACTIVITY, BEFORE, CLOSE, FAILED, FINISHED, IN_RUN, OPEN, type Phase, REASONING_MESSAGE, STEP, SUBAGENT, TEXT, TOOL } from "./verify-states.js";

export { ProtocolViolationError, type ProtocolRule };

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

/** An event's fields, read by name (the names come from {@link KINDS}). */
type Fields = Record<string, any>;

/**
 * The items that open and close by id, one row per kind: the prefix of its event types, its id
 * field, what it is called, the stem of its rules (`<stem>-already-started`, `<stem>-not-started`),
 * and the suffixes of its opening, content and closing event types (empty when it has none).
 *
 * Steps are tracked by a key that joins their name and owner (`"name" (owner)`), so that each
 * owner's are apart. A subagent's `subagentRunId` is its id and its owner at once; the ids of a
 * kind's owners map are those seen in the run, which for subagents is what `subagent-reused` and
 * `subagent-parent-not-started` look up.
 */
const KINDS = [
  "TEXT_MESSAGE,messageId,text message,message,START,CONTENT,END",
  "TOOL_CALL,toolCallId,tool call,tool-call,START,ARGS,END,CHUNK",
  "REASONING_MESSAGE,messageId,reasoning message,reasoning-message,START,CONTENT,END",
  "REASONING,messageId,reasoning span,reasoning,START,,END",
  "STEP,stepName,step,step,STARTED,,FINISHED",
  "SUBAGENT,subagentRunId,subagent,subagent,STARTED,,FINISHED",
].map((row) => row.split(",") as [prefix: string, field: string, noun: string, stem: string, ...suffixes: string[]]);
/** A row of {@link KINDS} (TEXT to SUBAGENT), or activity messages (ACTIVITY), from verify-states.ts. */
type Kind = number;
/** What an event does to its item: the index of its suffix in a row of {@link KINDS} (OPEN, 1, CLOSE). */
type Action = number;

/** The kind and action of each event type that opens, continues or closes an item. */
const ACTIONS: Partial<Record<string, readonly [kind: Kind, action: Action]>> = { SUBAGENT_ERROR: [SUBAGENT, CLOSE] };
KINDS.forEach(([prefix, , , , ...suffixes], kind) => suffixes.forEach((suffix, action) => suffix && (ACTIONS[`${prefix}_${suffix}`] = [kind, action])));

const q = JSON.stringify;

/** How messages show an id of a kind (a step's key, `"name" (owner)`, is shown as it is). */
function show(kind: Kind, id: string): string {
  return kind === STEP ? id : q(id);
}

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
  /**
   * Where the stream is: before any run, in a run, or after one that ended with RUN_FINISHED or
   * with RUN_ERROR (then a second RUN_ERROR in a row is not another run).
   */
  #phase: Phase = BEFORE;
  /** The type of the event being checked, for messages. */
  #type = "";
  /** Set while checking an event a 1.0 client derives from a chunk: says which, for messages. */
  #via = "";

  // The state of the current run, replaced when the next one starts.
  /** What is open, by kind ({@link KINDS}). */
  #open: Set<string>[] = [];
  /**
   * Who owns each id seen in the run, by kind and then activity messages ({@link ACTIVITY}).
   * Reasoning spans and reasoning messages are open apart but share their owners, as in 1.0.
   */
  #owners: Map<string, Owner>[] = [];
  /** Turns chunk events into the START, content and END events 1.0 derives from them. */
  readonly #chunks = new ChunkExpander();
  /**
   * The type and id of the event checked last when it continued an item (TEXT_MESSAGE_CONTENT,
   * TOOL_CALL_ARGS, REASONING_MESSAGE_CONTENT), else "". Most events of a stream are such,
   * continuing the same item: one of the same type and id right after, naming no
   * `subagentRunId`, passes at once, since its item is still open and with no owner named there
   * is nothing else to check.
   */
  #last = "";
  #lastId = "";

  /**
   * Checks the next event of the stream.
   *
   * @throws {ProtocolViolationError} When the event breaks one of the rules of
   *   {@link ProtocolRule}, naming the event's index and the rule.
   */
  push(event: AguiEvent): void {
    const index = this.#index++;
    this.#type = event.type;
    const chunks = this.#chunks;
    // Most streams hold no chunk events: then nothing is derived and the event is checked alone.
    if (chunks.passesThrough(event)) return this.#check(event, false);
    for (const derived of chunks.expand(event, index)) this.#check(derived, derived !== event);
  }

  /** Checks one event, the stream's or one derived from a chunk (`derived`, for messages). */
  #check(event: AguiEvent, derived: boolean): void {
    const type = event.type;
    const fields: Fields = event;
    const owner: Owner = fields.subagentRunId;
    if (type === this.#last && owner === undefined && (fields.messageId ?? fields.toolCallId) === this.#lastId) return;
    this.#last = "";
    if (event.type === "RUN_STARTED") {
      if (this.#phase === IN_RUN) this.#fail("run-already-started", "RUN_FINISHED or RUN_ERROR first", "a run open");
      this.#phase = IN_RUN;
      // A new run starts clean, as in 1.0.
      const map = () => new Map<string, Owner>();
      const reasoning = map();
      this.#open = KINDS.map(() => new Set());
      this.#owners = [map(), map(), reasoning, reasoning, map(), map(), map()];
      // Ids the request's messages hold belong to their owners for the whole run.
      if (event.input) this.#learn(event.input.messages, false);
      return;
    }
    if (this.#phase !== IN_RUN) {
      // A lone RUN_ERROR is a run that failed before it started: our server sends one when its
      // agent throws before its first event, and @ag-ui/client accepts it too.
      const afterError = this.#phase === FAILED;
      if (mayComeBetweenRuns(type, afterError)) {
        this.#phase = FAILED;
        return;
      }
      this.#fail(
        "run-started-first",
        `RUN_STARTED${afterError ? "" : " (or a lone RUN_ERROR)"} ${this.#phase ? `after the run ended${afterError ? " with RUN_ERROR" : ""}` : "as the first event"}`,
        type,
      );
    }
    const [kind, action] = ACTIONS[type] ?? [];
    if (kind !== undefined) {
      // (Only an opening event has a parent: reading a field an event lacks is slow, so only then.)
      // A subagent's parent is another subagent; a tool call's is a message (a SUBAGENT_STARTED may
      // name both, and only the first is checked here).
      const parent = action ? undefined : kind === SUBAGENT ? fields.parentSubagentRunId : fields.parentMessageId;
      return this.#item(kind, action!, fields[KINDS[kind]![1]], owner, derived, parent);
    }
    const owners = this.#owners;
    switch (event.type) {
      case "TOOL_CALL_RESULT":
        // The result is a new tool message: its id now belongs to whoever sent it.
        owners[TEXT]!.set(event.messageId, owner);
        return;
      case "REASONING_ENCRYPTED_VALUE": {
        const id = event.entityId;
        if (event.subtype === "tool-call") return this.#owned(owners[TOOL]!, id, owner, "tool call");
        // A message's entityId may name a text (or tool, user...) message or a reasoning message.
        return this.#owned(owners[owners[TEXT]!.has(id) ? TEXT : REASONING_MESSAGE]!, id, owner, "message");
      }
      case "ACTIVITY_SNAPSHOT":
        // A snapshot that replaces the activity (the default) makes it its sender's.
        if (event.replace !== false || !owners[ACTIVITY]!.has(event.messageId)) owners[ACTIVITY]!.set(event.messageId, owner);
        return;
      case "ACTIVITY_DELTA":
        return this.#owned(owners[ACTIVITY]!, event.messageId, owner, "activity");
      case "MESSAGES_SNAPSHOT":
        // The snapshot is the truth from now on: its owners replace what was known.
        return this.#learn(event.messages, true);
      case "RUN_FINISHED": {
        const open = this.#open.flatMap((ids, kind) => (ids.size ? `${KINDS[kind]![2]}s ${[...ids].map((id) => show(kind, id)).join(", ")}` : []));
        if (open.length) this.#fail("run-finished-with-open-items", "every item closed", `open ${open.join("; ")}`);
        this.#phase = FINISHED;
        return;
      }
      case "RUN_ERROR":
        this.#phase = FAILED;
        return;
      default:
      // STATE_SNAPSHOT, STATE_DELTA, RAW and CUSTOM belong to no item.
    }
  }

  /**
   * Ends the stream.
   *
   * @throws {AguiWireError} `truncated_stream` when the stream held no run at all (a lone RUN_ERROR
   *   counts as a run), or its last run has neither RUN_FINISHED nor RUN_ERROR.
   */
  end(): void {
    const inRun = this.#phase === IN_RUN;
    if (this.#phase < FINISHED) {
      throw new AguiWireError(
        "truncated_stream",
        `the event stream ended ${inRun ? `inside a run, after ${this.#index} events` : "without any run"}: expected ${inRun ? "RUN_FINISHED" : "RUN_STARTED"} or RUN_ERROR`,
      );
    }
  }

  /** Every message: which event, the rule, what was expected and what was found. */
  #fail(rule: string, expected: string, found: string): never {
    throw violation(this.#index - 1, this.#type, rule as ProtocolRule, expected, found, this.#via && ` (${this.#via})`);
  }

  /** Remembers who owns each message (and each tool call of an assistant message) of a list. */
  #learn(messages: readonly Message[], replace: boolean): void {
    const own = (owners: Map<string, Owner>, id: string, owner: Owner) => {
      if (replace || !owners.has(id)) owners.set(id, owner);
    };
    for (const message of messages) {
      own(this.#owners[message.role === "reasoning" ? REASONING_MESSAGE : message.role === "activity" ? ACTIVITY : TEXT]!, message.id, message.subagentRunId);
      if (message.role === "assistant") for (const call of message.toolCalls ?? []) own(this.#owners[TOOL]!, call.id, message.subagentRunId);
    }
  }

  /**
   * Fails when an event attributed to `found` refers to an id of `owners` that belongs to someone
   * else. An event without `subagentRunId` inherits its owner's, unless `inferred` says where else
   * its owner comes from (then `found` counts even when it is the agent).
   */
  #owned(owners: Map<string, Owner>, id: string, found: Owner, what: string, inferred = "", rule = "subagent-mismatch"): void {
    // Most events carry no subagentRunId: settle those before looking anything up.
    if ((inferred || found !== undefined) && owners.has(id) && owners.get(id) !== found) {
      this.#fail(rule, `${who(owners.get(id))}, owner of ${what} ${q(id)}`, who(found) + inferred);
    }
  }

  /**
   * The one path of every event that opens, continues or closes an item by id (a row of
   * {@link KINDS}): it must not be open, or must be, and must belong to the owner the event says.
   * `parent` is a TOOL_CALL_START's `parentMessageId` (a tool call belongs to the message that
   * carries it, if that one is known) or a SUBAGENT_STARTED's `parentSubagentRunId`. `derived`
   * says the event is one a 1.0 client derives from a chunk, for messages.
   */
  #item(kind: Kind, action: Action, id: string, owner: Owner, derived: boolean, parent?: string): void {
    const [prefix, field, noun, stem, opener, , closer] = KINDS[kind]!;
    this.#via = derived ? `as the ${prefix}_${KINDS[kind]![4 + action]} a 1.0 client derives from ${action === CLOSE ? "the chunked item it ends" : "this chunk"}` : "";
    const open = this.#open[kind]!;
    const owners = this.#owners[kind]!;
    const name = id;
    if (kind === STEP) id = `${q(name)} (${who(owner)})`;
    if (open.has(id) === (action === OPEN)) {
      let found = action ? (kind === SUBAGENT && owners.has(id) ? "it ended" : "it not open") : "it open";
      // Only on the way to an error: a step open for another owner, to say so.
      if (kind === STEP && action) for (const key of open) if (key.startsWith(q(name))) found += `, but open for ${who(owners.get(key))}`;
      this.#fail(`${stem}-${action ? "not" : "already"}-started`, `${prefix}_${action ? opener : closer} first for ${field} ${show(kind, id)}`, found);
    }
    let inferred = "";
    if (action === OPEN) {
      if (kind === SUBAGENT) {
        if (owners.has(id)) this.#fail("subagent-reused", "a new subagentRunId", `${q(id)}, ended in this run`);
        if (parent !== undefined && !owners.has(parent)) this.#fail("subagent-parent-not-started", "a parentSubagentRunId started in this run", q(parent));
      }
      const messages = this.#owners[TEXT]!;
      if (kind === TOOL && parent !== undefined && messages.has(parent)) {
        this.#owned(messages, parent, owner, "parent message");
        if (owner === undefined) {
          owner = messages.get(parent);
          inferred = ` (owner of its parent message ${q(parent)})`;
        }
      }
    }
    this.#owned(owners, id, owner, noun, inferred);
    if (action === OPEN) {
      open.add(id);
      if (!owners.has(id)) owners.set(id, owner);
    } else if (action === CLOSE) open.delete(id);
    else {
      // Content (of an event of the stream's: a chunk's type never matches a derived event's).
      this.#last = this.#type;
      this.#lastId = id;
    }
    this.#via = "";
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
