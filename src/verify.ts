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

/** Where a stream is, between and in runs. */
const enum Phase {
  Before,
  InRun,
  Finished,
  Failed,
}

/** Who an item belongs to: a subagent invocation's `subagentRunId`, or undefined for the agent. */
type Owner = string | undefined;

/** An event's fields, read by name (the names come from {@link KINDS} and {@link REPEATED}). */
type Fields = Record<string, any>;

/**
 * The items that open and close by id, one row per kind: the prefix of its event types, its id
 * field, what it is called, the stem of its rules (`<stem>-already-started`, `<stem>-not-started`),
 * and the suffixes of its opening, content, closing and chunk event types (empty when it has none).
 *
 * Steps are tracked by a key that joins their name and owner (`"name" (owner)`), so that each
 * owner's are apart. A subagent's `subagentRunId` is its id and its owner at once; the ids of a
 * kind's owners map are those seen in the run, which for subagents is what `subagent-reused` and
 * `subagent-parent-not-started` look up.
 */
const KINDS = [
  "TEXT_MESSAGE,messageId,text message,message,START,CONTENT,END,CHUNK",
  "TOOL_CALL,toolCallId,tool call,tool-call,START,ARGS,END,CHUNK",
  "REASONING_MESSAGE,messageId,reasoning message,reasoning-message,START,CONTENT,END,CHUNK",
  "REASONING,messageId,reasoning span,reasoning,START,,END",
  "STEP,stepName,step,step,STARTED,,FINISHED",
  "SUBAGENT,subagentRunId,subagent,subagent,STARTED,,FINISHED",
].map((row) => row.split(",") as [prefix: string, field: string, noun: string, stem: string, ...suffixes: string[]]);
/** The rows of {@link KINDS}, then activity messages (which only have owners). */
const enum Kind {
  Text,
  Tool,
  ReasoningMessage,
  ReasoningSpan,
  Step,
  Subagent,
  Activity,
}

/** What an event does to its item (the index of its suffix in a row of {@link KINDS}), or that it is a chunk. */
const enum Action {
  Open,
  Continue,
  Close,
  Chunk,
}

/** The kind and action of each event type that opens, continues or closes an item, or is a chunk. */
const ACTIONS: Partial<Record<string, readonly [kind: Kind, action: Action]>> = { SUBAGENT_ERROR: [Kind.Subagent, Action.Close] };
KINDS.forEach(([prefix, , , , ...suffixes], kind) => suffixes.forEach((suffix, action) => suffix && (ACTIONS[`${prefix}_${suffix}`] = [kind, action])));

/**
 * The events that leave open chunked items open, as in 1.0's chunk transform. RUN_FINISHED,
 * RUN_ERROR and MESSAGES_SNAPSHOT close them all; every other event closes its owner's.
 */
const LEAVE_CHUNKS_OPEN = new Set("RAW ACTIVITY_SNAPSHOT ACTIVITY_DELTA REASONING_ENCRYPTED_VALUE SUBAGENT_STARTED".split(" "));

/** The fields a continuing chunk may repeat but not contradict (each chunk type has some or none). */
const REPEATED = ["role", "name", "toolCallName", "parentMessageId"];

const q = JSON.stringify;

/** Names an owner for a message. */
function who(owner: Owner): string {
  return owner === undefined ? "the agent" : `subagent ${q(owner)}`;
}

/** How messages show an id of a kind (a step's key, `"name" (owner)`, is shown as it is). */
function show(kind: Kind, id: string): string {
  return kind === Kind.Step ? id : q(id);
}

/**
 * A chunked item a 1.0 client holds open: the chunk transform of `@ag-ui/client` 1.0 turns the
 * first chunk of an item into its START event and closes the item (its END event) when the next
 * item of the same owner begins, or at the end of the run.
 */
interface ChunkStream {
  readonly kind: Kind;
  readonly id: string;
  /**
   * The chunk that opened it, for what later chunks repeat. Its `subagentRunId` is the item's
   * owner, and its key among the open streams.
   */
  readonly first: Fields;
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
  #phase: Phase = Phase.Before;
  /** The type of the event being checked, for messages. */
  #type = "";
  /** Set while checking an event a 1.0 client derives from a chunk: says which, for messages. */
  #via = "";

  // The state of the current run, replaced when the next one starts.
  /** What is open, by kind ({@link KINDS}). */
  #open: Set<string>[] = [];
  /**
   * Who owns each id seen in the run, by kind and then activity messages ({@link Kind.Activity}).
   * Reasoning spans and reasoning messages are open apart but share their owners, as in 1.0.
   */
  #owners: Map<string, Owner>[] = [];
  /** The open chunked items, by owner: one per owner at most. */
  #streams = new Map<Owner, ChunkStream>();
  /** The owner of each open chunked item, by kind then id. */
  #chunkOwners: Map<string, Owner>[] = [];

  /**
   * Checks the next event of the stream.
   *
   * @throws {ProtocolViolationError} When the event breaks one of the rules of
   *   {@link ProtocolRule}, naming the event's index and the rule.
   */
  push(event: AguiEvent): void {
    this.#index++;
    const type = (this.#type = event.type);
    const fields: Fields = event;
    const owner: Owner = fields.subagentRunId;
    if (event.type === "RUN_STARTED") {
      if (this.#phase === Phase.InRun) this.#fail("run-already-started", "RUN_FINISHED or RUN_ERROR first", "a run open");
      this.#phase = Phase.InRun;
      // A new run starts clean, as in 1.0.
      const map = () => new Map<string, Owner>();
      const reasoning = map();
      this.#open = KINDS.map(() => new Set());
      this.#owners = [map(), map(), reasoning, reasoning, map(), map(), map()];
      this.#chunkOwners = [map(), map(), map()];
      this.#streams = new Map();
      // Ids the request's messages hold belong to their owners for the whole run.
      if (event.input) this.#learn(event.input.messages, false);
      return;
    }
    if (this.#phase !== Phase.InRun) {
      // A lone RUN_ERROR is a run that failed before it started: our server sends one when its
      // agent throws before its first event, and @ag-ui/client accepts it too.
      const afterError = this.#phase === Phase.Failed;
      if (mayComeBetweenRuns(type, afterError)) {
        this.#phase = Phase.Failed;
        return;
      }
      this.#fail(
        "run-started-first",
        `RUN_STARTED${afterError ? "" : " (or a lone RUN_ERROR)"} ${this.#phase ? `after the run ended${afterError ? " with RUN_ERROR" : ""}` : "as the first event"}`,
        type,
      );
    }
    const [kind, action] = ACTIONS[type] ?? [];
    if (action === Action.Chunk) return this.#chunk(kind!, fields);
    // What closes open chunked items, as 1.0's chunk transform does before passing the event on.
    if (type.startsWith("RUN_") || type === "MESSAGES_SNAPSHOT") {
      // (Deleting the entry being visited does not disturb a Map's iteration.)
      for (const key of this.#streams.keys()) this.#close(key);
    } else if (!LEAVE_CHUNKS_OPEN.has(type)) this.#close(owner);
    if (kind !== undefined) {
      // (Only an opening event has a parent: reading a field an event lacks is slow, so only then.)
      // A subagent's parent is another subagent; a tool call's is a message (a SUBAGENT_STARTED may
      // name both, and only the first is checked here).
      const parent = action ? undefined : kind === Kind.Subagent ? fields.parentSubagentRunId : fields.parentMessageId;
      return this.#item(kind, action!, fields[KINDS[kind]![1]], owner, false, parent);
    }
    const owners = this.#owners;
    switch (event.type) {
      case "TOOL_CALL_RESULT":
        // The result is a new tool message: its id now belongs to whoever sent it.
        owners[Kind.Text]!.set(event.messageId, owner);
        return;
      case "REASONING_ENCRYPTED_VALUE": {
        const id = event.entityId;
        if (event.subtype === "tool-call") return this.#owned(owners[Kind.Tool]!, id, owner, "tool call");
        // A message's entityId may name a text (or tool, user...) message or a reasoning message.
        return this.#owned(owners[owners[Kind.Text]!.has(id) ? Kind.Text : Kind.ReasoningMessage]!, id, owner, "message");
      }
      case "ACTIVITY_SNAPSHOT":
        // A snapshot that replaces the activity (the default) makes it its sender's.
        if (event.replace !== false || !owners[Kind.Activity]!.has(event.messageId)) owners[Kind.Activity]!.set(event.messageId, owner);
        return;
      case "ACTIVITY_DELTA":
        return this.#owned(owners[Kind.Activity]!, event.messageId, owner, "activity");
      case "MESSAGES_SNAPSHOT":
        // The snapshot is the truth from now on: its owners replace what was known.
        return this.#learn(event.messages, true);
      case "RUN_FINISHED": {
        const open = this.#open.flatMap((ids, kind) => (ids.size ? `${KINDS[kind]![2]}s ${[...ids].map((id) => show(kind, id)).join(", ")}` : []));
        if (open.length) this.#fail("run-finished-with-open-items", "every item closed", `open ${open.join("; ")}`);
        this.#phase = Phase.Finished;
        return;
      }
      case "RUN_ERROR":
        this.#phase = Phase.Failed;
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
    const inRun = this.#phase === Phase.InRun;
    if (this.#phase < Phase.Finished) {
      throw new AguiWireError(
        "truncated_stream",
        `the event stream ended ${inRun ? `inside a run, after ${this.#index} events` : "without any run"}: expected ${inRun ? "RUN_FINISHED" : "RUN_STARTED"} or RUN_ERROR`,
      );
    }
  }

  /** Every message: which event, the rule, what was expected and what was found. */
  #fail(rule: string, expected: string, found: string): never {
    const at = this.#index - 1;
    const via = this.#via && ` (${this.#via})`;
    throw new ProtocolViolationError(at, rule as ProtocolRule, `event #${at} (${this.#type}) breaks ${rule}: expected ${expected}, found ${found}${via}`);
  }

  /** Remembers who owns each message (and each tool call of an assistant message) of a list. */
  #learn(messages: readonly Message[], replace: boolean): void {
    const own = (owners: Map<string, Owner>, id: string, owner: Owner) => {
      if (replace || !owners.has(id)) owners.set(id, owner);
    };
    for (const message of messages) {
      own(this.#owners[message.role === "reasoning" ? Kind.ReasoningMessage : message.role === "activity" ? Kind.Activity : Kind.Text]!, message.id, message.subagentRunId);
      if (message.role === "assistant") for (const call of message.toolCalls ?? []) own(this.#owners[Kind.Tool]!, call.id, message.subagentRunId);
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
    this.#via = derived ? `as the ${prefix}_${KINDS[kind]![4 + action]} a 1.0 client derives from ${action === Action.Close ? "the chunked item it ends" : "this chunk"}` : "";
    const open = this.#open[kind]!;
    const owners = this.#owners[kind]!;
    const name = id;
    if (kind === Kind.Step) id = `${q(name)} (${who(owner)})`;
    if (open.has(id) === (action === Action.Open)) {
      let found = action ? (kind === Kind.Subagent && owners.has(id) ? "it ended" : "it not open") : "it open";
      // Only on the way to an error: a step open for another owner, to say so.
      if (kind === Kind.Step && action) for (const key of open) if (key.startsWith(q(name))) found += `, but open for ${who(owners.get(key))}`;
      this.#fail(`${stem}-${action ? "not" : "already"}-started`, `${prefix}_${action ? opener : closer} first for ${field} ${show(kind, id)}`, found);
    }
    let inferred = "";
    if (action === Action.Open) {
      if (kind === Kind.Subagent) {
        if (owners.has(id)) this.#fail("subagent-reused", "a new subagentRunId", `${q(id)}, ended in this run`);
        if (parent !== undefined && !owners.has(parent)) this.#fail("subagent-parent-not-started", "a parentSubagentRunId started in this run", q(parent));
      }
      const messages = this.#owners[Kind.Text]!;
      if (kind === Kind.Tool && parent !== undefined && messages.has(parent)) {
        this.#owned(messages, parent, owner, "parent message");
        if (owner === undefined) {
          owner = messages.get(parent);
          inferred = ` (owner of its parent message ${q(parent)})`;
        }
      }
    }
    this.#owned(owners, id, owner, noun, inferred);
    if (action === Action.Open) {
      open.add(id);
      if (!owners.has(id)) owners.set(id, owner);
    } else if (action === Action.Close) open.delete(id);
    this.#via = "";
  }

  /**
   * A chunk event, as 1.0's chunk transform sees it: which open chunked item it continues, or
   * which it starts (closing the one its owner had open); then the START and content events the
   * transform derives from it are checked like any.
   */
  #chunk(kind: Kind, chunk: Fields): void {
    const [prefix, field] = KINDS[kind]!;
    const id: string | undefined = chunk[field];
    const owner: Owner = chunk.subagentRunId;
    const owners = this.#chunkOwners[kind]!;
    // Which owner's chunked item this chunk is about.
    let key = owner;
    if (id !== undefined) {
      this.#owned(owners, id, owner, "the open chunked item", "", "chunk-mismatch");
      key ??= owners.get(id);
    } else if (owner === undefined && this.#streams.get(undefined)?.kind !== kind) {
      // The only open item of this kind, whoever owns it; or none, and the chunk must start one.
      if (owners.size > 1) this.#fail("chunk-ambiguous", `a ${field} or a subagentRunId`, `neither, while ${owners.size} owners have a ${prefix}_CHUNK item open`);
      key = owners.values().next().value;
    }
    let stream = this.#streams.get(key);
    const continues = stream?.kind === kind && (id === undefined || id === stream.id);
    if (continues) {
      for (const name of REPEATED) {
        const found = chunk[name];
        const expected = stream!.first[name] ?? (name === "role" ? "assistant" : undefined);
        if (found !== undefined && found !== expected) {
          // (q(undefined) is undefined.)
          this.#fail("chunk-mismatch", `${name} ${q(expected) ?? "absent"} (as the open chunked item ${q(stream!.id)} has) or none`, q(found));
        }
      }
    } else {
      const missing = id === undefined ? field : kind === Kind.Tool && chunk.toolCallName === undefined ? "toolCallName" : "";
      if (missing) this.#fail("chunk-incomplete", `a ${missing} on a ${prefix}_CHUNK that starts ${q(id) ?? "an item"}`, "none");
      this.#close(key);
      // (Here key is owner: an id open for another owner would have been continued.)
      this.#streams.set(owner, (stream = { kind, id: id!, first: chunk }));
      owners.set(id!, owner);
      this.#item(kind, Action.Open, id!, owner, true, chunk.parentMessageId);
    }
    // 1.0 derives a content event from a chunk with a delta (or a rawEvent), and from a chunk that
    // only carries metadata; a bare continuation derives nothing.
    if (chunk.delta !== undefined || chunk.rawEvent !== undefined || (continues && chunk.metadata !== undefined)) {
      this.#item(kind, Action.Continue, stream!.id, key, true);
    }
  }

  /** Closes the chunked item `owner` has open, if any: checks the END event 1.0 derives. */
  #close(owner: Owner): void {
    const stream = this.#streams.get(owner);
    if (!stream) return;
    this.#streams.delete(owner);
    this.#chunkOwners[stream.kind]!.delete(stream.id);
    this.#item(stream.kind, Action.Close, stream.id, owner, true);
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
