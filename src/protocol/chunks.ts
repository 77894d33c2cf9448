/**
 * Expands the three chunk events into start/content/end triples exactly as `@ag-ui/client` 1.0's
 * `transformChunks` does: one open chunk stream per lane (the parent agent, or a subagent run), a
 * stream closed by the next non-chunk event of its lane, or by any run boundary or messages snapshot.
 *
 * @module
 */
import type { AguiEvent, EventOf } from "../model/index.js";
import type { JsonObject } from "../model/index.js";
import { ProtocolViolationError, type ProtocolRule } from "./protocol-violation.js";

type Kind = "text" | "tool" | "reasoning";
/** What an open chunk stream remembers from its first chunk. */
interface Open {
  kind: Kind;
  /** messageId, or toolCallId for a tool stream. */
  id: string;
  role?: string;
  name?: string;
  toolCallName?: string;
  parentMessageId?: string;
  subagentRunId?: string;
}
type Lane = string | undefined;

/** Event types that close the open stream of their own lane (their subagentRunId) and pass through. */
const CLOSES_LANE = new Set<string>([
  "TEXT_MESSAGE_START", "TEXT_MESSAGE_CONTENT", "TEXT_MESSAGE_END",
  "TOOL_CALL_START", "TOOL_CALL_ARGS", "TOOL_CALL_END", "TOOL_CALL_RESULT",
  "STATE_SNAPSHOT", "STATE_DELTA", "CUSTOM", "STEP_STARTED", "STEP_FINISHED",
  "REASONING_START", "REASONING_MESSAGE_START", "REASONING_MESSAGE_CONTENT",
  "REASONING_MESSAGE_END", "REASONING_END",
]);
/** Event types that close every open stream and pass through. */
const CLOSES_ALL = new Set<string>(["RUN_STARTED", "RUN_FINISHED", "RUN_ERROR", "MESSAGES_SNAPSHOT"]);

const END_TYPE = { text: "TEXT_MESSAGE_END", tool: "TOOL_CALL_END", reasoning: "REASONING_MESSAGE_END" } as const;
const ID_FIELD = { text: "messageId", tool: "toolCallId", reasoning: "messageId" } as const;
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
    if (CLOSES_LANE.has(type)) return [...this.#close((event as { subagentRunId?: string }).subagentRunId), event];
    if (CLOSES_ALL.has(type)) return [...this.#closeAll(), event];
    switch (type) {
      case "SUBAGENT_FINISHED":
      case "SUBAGENT_ERROR":
        return [...this.#close(event.subagentRunId), event];
      case "TEXT_MESSAGE_CHUNK":
        return this.#chunk("text", event, event.messageId);
      case "TOOL_CALL_CHUNK":
        return this.#chunk("tool", event, event.toolCallId);
      case "REASONING_MESSAGE_CHUNK":
        return this.#chunk("reasoning", event, event.messageId);
      default:
        return [event];
    }
  }

  #fail(rule: ProtocolRule, expected: string, found: string): never {
    throw new ProtocolViolationError(this.#at, rule, `event #${this.#at} (${this.#type}) breaks ${rule}: expected ${expected}, found ${found}`);
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
    const end = { type: END_TYPE[open.kind], [ID_FIELD[open.kind]]: open.id } as Record<string, unknown>;
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
            this.#fail("chunk-mismatch", `${lane === undefined ? "the agent" : `subagent ${q(lane)}`}, owner of the open chunked item ${q(id)}`, `subagent ${q(subagentRunId)}`);
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
      this.#fail("chunk-ambiguous", `a ${ID_FIELD[kind]} or a subagentRunId`, `neither, while ${lanes.length} owners have a ${chunkType} item open`);
    }
    return undefined;
  }

  #chunk(
    kind: Kind,
    chunk: EventOf<"TEXT_MESSAGE_CHUNK"> | EventOf<"TOOL_CALL_CHUNK"> | EventOf<"REASONING_MESSAGE_CHUNK">,
    id: string | undefined,
  ): AguiEvent[] {
    const c = chunk as {
      role?: string; name?: string; toolCallName?: string; parentMessageId?: string;
      delta?: string; subagentRunId?: string; metadata?: JsonObject; rawEvent?: unknown;
    };
    const lane = this.#lane(kind, id, c.subagentRunId, chunk.type);
    const current = this.#open.get(lane);
    const out: Record<string, unknown>[] = [];
    let open: Open;
    if (current?.kind === kind && (id === undefined || id === current.id)) {
      if (kind === "text") {
        this.#same(current.id, "role", c.role, current.role);
        this.#same(current.id, "name", c.name, current.name);
      } else if (kind === "tool") {
        this.#same(current.id, "toolCallName", c.toolCallName, current.toolCallName);
        this.#same(current.id, "parentMessageId", c.parentMessageId, current.parentMessageId);
      }
      open = current;
    } else {
      out.push(...(this.#close(lane) as unknown as Record<string, unknown>[]));
      if (id === undefined) this.#fail("chunk-incomplete", `a ${ID_FIELD[kind]} on a ${chunk.type} that starts an item`, "none");
      const start: Record<string, unknown> = { type: "" };
      if (kind === "text") {
        open = { kind, id, role: c.role ?? "assistant", name: c.name, subagentRunId: c.subagentRunId };
        Object.assign(start, { type: "TEXT_MESSAGE_START", messageId: id, role: open.role });
        if (c.name !== undefined) start.name = c.name;
      } else if (kind === "tool") {
        if (c.toolCallName === undefined) this.#fail("chunk-incomplete", `a toolCallName on a TOOL_CALL_CHUNK that starts ${q(id)}`, "none");
        open = { kind, id, toolCallName: c.toolCallName, parentMessageId: c.parentMessageId, subagentRunId: c.subagentRunId };
        Object.assign(start, { type: "TOOL_CALL_START", toolCallId: id, toolCallName: c.toolCallName });
        if (c.parentMessageId !== undefined) start.parentMessageId = c.parentMessageId;
      } else {
        open = { kind, id, subagentRunId: c.subagentRunId };
        Object.assign(start, { type: "REASONING_MESSAGE_START", messageId: id, role: "reasoning" });
      }
      if (c.subagentRunId !== undefined) start.subagentRunId = c.subagentRunId;
      if (c.metadata !== undefined) start.metadata = c.metadata;
      this.#open.set(lane, open);
      out.push(start);
    }
    const contentType = kind === "text" ? "TEXT_MESSAGE_CONTENT" : kind === "tool" ? "TOOL_CALL_ARGS" : "REASONING_MESSAGE_CONTENT";
    const sub = c.subagentRunId === undefined ? open.subagentRunId : c.subagentRunId;
    // A chunk with a delta (or a raw event to carry) becomes a content event; one with only metadata
    // becomes an empty content event so its metadata still reaches the message.
    if (c.delta !== undefined || c.rawEvent !== undefined || (out.length === 0 && c.metadata !== undefined)) {
      const content: Record<string, unknown> = { type: contentType, [ID_FIELD[kind]]: open.id, delta: c.delta ?? "" };
      if (sub !== undefined) content.subagentRunId = sub;
      if (c.metadata !== undefined) content.metadata = c.metadata;
      if (c.rawEvent !== undefined) content.rawEvent = c.rawEvent;
      out.push(content);
    }
    return out as unknown as AguiEvent[];
  }
}
