/**
 * Expands the three chunk events into start/content/end triples exactly as `@ag-ui/client` 1.0's
 * `transformChunks` does: one open chunk stream per lane (the parent agent, or a subagent run), a
 * stream closed by the next non-chunk event of its lane, or by any run boundary or messages snapshot.
 *
 * @module
 */
import type { AguiEvent, EventOf, JsonObject } from "../model/index.js";
import { isEventType } from "../model/event-type.js";
import { type ProtocolRule, violation, who } from "./protocol-violation.js";

type Kind = "text" | "tool" | "reasoning";
/** What an open chunk stream remembers from its first chunk: its kind, id, owner, and the fields it fixed. */
interface Open {
  kind: Kind;
  /** messageId, or toolCallId for a tool stream. */
  id: string;
  subagentRunId?: string;
  [field: string]: string | undefined;
}
type Lane = string | undefined;

/**
 * Each kind of chunked item: the prefix of its events' types, its id field, its content event's
 * type, and the fields its first chunk fixes for the item (a continuing chunk must agree), each
 * with its default, in the order its START event has them.
 */
const KINDS: Record<Kind, [prefix: string, idField: string, content: string, fixed: Record<string, string | undefined>]> = {
  text: ["TEXT_MESSAGE", "messageId", "TEXT_MESSAGE_CONTENT", { role: "assistant", name: undefined }],
  tool: ["TOOL_CALL", "toolCallId", "TOOL_CALL_ARGS", { toolCallName: undefined, parentMessageId: undefined }],
  reasoning: ["REASONING_MESSAGE", "messageId", "REASONING_MESSAGE_CONTENT", { role: "reasoning" }],
};

/** Event types that close every open stream and pass through. */
const CLOSES_ALL = new Set<string>(["RUN_STARTED", "RUN_FINISHED", "RUN_ERROR", "MESSAGES_SNAPSHOT"]);
/**
 * Event types that pass through and leave every stream open. Every other known type that is no
 * chunk closes the open stream of its own lane (its subagentRunId) and passes through.
 */
const KEEPS_OPEN = new Set<string>(["RAW", "ACTIVITY_SNAPSHOT", "ACTIVITY_DELTA", "SUBAGENT_STARTED", "REASONING_ENCRYPTED_VALUE"]);

const q = JSON.stringify;

/**
 * Stateful expander for one event stream (one per agent run pipeline, kept across runs as theirs is).
 * Feed every event through {@link ChunkExpander.expand}; non-chunk events come back unchanged, with
 * the END events of any chunk stream they close in front of them.
 */
export class ChunkExpander {
  readonly #open = new Map<Lane, Open>();
  #count = 0;
  #at = 0;
  #type = "";

  /**
   * Whether {@link expand} would return `event` alone, with nothing to derive or close: it is no
   * chunk and no chunked item is open. Lets a reader skip expansion for most events.
   */
  passesThrough(event: AguiEvent): boolean {
    return this.#open.size === 0 && !event.type.endsWith("_CHUNK");
  }

  /**
   * The events `event` stands for, in order.
   *
   * @param index - The event's position in the stream, for errors; default: one past the last.
   * @throws {ProtocolViolationError} Where theirs refuses a chunk: `chunk-incomplete` (the first
   *   chunk of an item lacks its id, or a tool call's name), `chunk-mismatch` (a continuing chunk
   *   contradicts the item's role, name, toolCallName, parentMessageId or subagentRunId),
   *   `chunk-ambiguous` (an id-less chunk could continue the open items of several owners).
   */
  expand(event: AguiEvent, index: number = this.#count): AguiEvent[] {
    this.#count = index + 1;
    this.#at = index;
    const type = event.type;
    this.#type = type;
    if (CLOSES_ALL.has(type)) return [...this.#closeAll(), event];
    switch (type) {
      case "TEXT_MESSAGE_CHUNK":
        return this.#chunk("text", event, event.messageId);
      case "TOOL_CALL_CHUNK":
        return this.#chunk("tool", event, event.toolCallId);
      case "REASONING_MESSAGE_CHUNK":
        return this.#chunk("reasoning", event, event.messageId);
      default:
        if (KEEPS_OPEN.has(type) || !isEventType(type)) return [event];
        return [...this.#close((event as { subagentRunId?: string }).subagentRunId), event];
    }
  }

  #fail(rule: ProtocolRule, expected: string, found: string): never {
    throw violation(this.#at, this.#type, rule, expected, found);
  }

  /** A continuing chunk's value for a field its item's first chunk fixed must match it, or be absent. */
  #same(id: string, field: string, found: string | undefined, expected: string | undefined): void {
    if (found !== undefined && found !== expected) {
      this.#fail("chunk-mismatch", `${field} ${q(expected) ?? "absent"} (as the open chunked item ${q(id)} has) or none`, q(found));
    }
  }

  #close(lane: Lane): AguiEvent[] {
    const open = this.#open.get(lane);
    if (open === undefined) return [];
    this.#open.delete(lane);
    const [prefix, idField] = KINDS[open.kind];
    const end: Record<string, unknown> = { type: `${prefix}_END`, [idField]: open.id };
    if (open.subagentRunId !== undefined) end.subagentRunId = open.subagentRunId;
    return [end as unknown as AguiEvent];
  }

  #closeAll(): AguiEvent[] {
    return [...this.#open.keys()].flatMap((lane) => this.#close(lane));
  }

  /** Which lane a chunk belongs to: theirs' rule, by id first, then subagentRunId, then the one open lane. */
  #lane(kind: Kind, id: string | undefined, subagentRunId: string | undefined, chunkType: string): Lane {
    if (id !== undefined) {
      for (const [lane, open] of this.#open) {
        if (open.kind === kind && open.id === id) {
          if (subagentRunId !== undefined && subagentRunId !== lane) {
            this.#fail("chunk-mismatch", `${who(lane)}, owner of the open chunked item ${q(id)}`, who(subagentRunId));
          }
          return lane;
        }
      }
      return subagentRunId;
    }
    if (subagentRunId !== undefined) return subagentRunId;
    if (this.#open.get(undefined)?.kind === kind) return undefined;
    const lanes = [...this.#open].filter(([, open]) => open.kind === kind);
    if (lanes.length === 1) return lanes[0]![0];
    if (lanes.length > 1) {
      this.#fail("chunk-ambiguous", `a ${KINDS[kind][1]} or a subagentRunId`, `neither, while ${lanes.length} owners have a ${chunkType} item open`);
    }
    return undefined;
  }

  #chunk(
    kind: Kind,
    chunk: EventOf<"TEXT_MESSAGE_CHUNK"> | EventOf<"TOOL_CALL_CHUNK"> | EventOf<"REASONING_MESSAGE_CHUNK">,
    id: string | undefined,
  ): AguiEvent[] {
    const c = chunk as unknown as { [field: string]: string | undefined } & { metadata?: JsonObject; rawEvent?: unknown };
    const [prefix, idField, contentType, fixed] = KINDS[kind];
    const lane = this.#lane(kind, id, c.subagentRunId, chunk.type);
    const current = this.#open.get(lane);
    const out: Record<string, unknown>[] = [];
    let open: Open;
    if (current?.kind === kind && (id === undefined || id === current.id)) {
      for (const field in fixed) this.#same(current.id, field, c[field], current[field]);
      open = current;
    } else {
      out.push(...(this.#close(lane) as unknown as Record<string, unknown>[]));
      if (id === undefined) this.#fail("chunk-incomplete", `a ${idField} on a ${chunk.type} that starts an item`, "none");
      if (kind === "tool" && c.toolCallName === undefined) this.#fail("chunk-incomplete", `a toolCallName on a TOOL_CALL_CHUNK that starts ${q(id)}`, "none");
      open = { kind, id, subagentRunId: c.subagentRunId };
      const start: Record<string, unknown> = { type: `${prefix}_START`, [idField]: id };
      for (const field in fixed) {
        const value = (open[field] = c[field] ?? fixed[field]);
        if (value !== undefined) start[field] = value;
      }
      if (c.subagentRunId !== undefined) start.subagentRunId = c.subagentRunId;
      if (c.metadata !== undefined) start.metadata = c.metadata;
      this.#open.set(lane, open);
      out.push(start);
    }
    const sub = c.subagentRunId === undefined ? open.subagentRunId : c.subagentRunId;
    // A chunk with a delta (or a raw event to carry) becomes a content event; one with only metadata
    // becomes an empty content event so its metadata still reaches the message.
    if (c.delta !== undefined || c.rawEvent !== undefined || (out.length === 0 && c.metadata !== undefined)) {
      const content: Record<string, unknown> = { type: contentType, [idField]: open.id, delta: c.delta ?? "" };
      if (sub !== undefined) content.subagentRunId = sub;
      if (c.metadata !== undefined) content.metadata = c.metadata;
      if (c.rawEvent !== undefined) content.rawEvent = c.rawEvent;
      out.push(content);
    }
    return out as unknown as AguiEvent[];
  }
}
