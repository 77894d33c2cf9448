/**
 * `@ag-ui/client` 1.0's `compactEvents`: a recorded run's events with each text message's and tool
 * call's pieces joined into one, and each run's state events folded into one snapshot, for storing
 * or replaying a run in fewer events.
 *
 * @module
 */
import type { AguiEvent, BaseEvent, JsonPatchOperation, JsonValue } from "../model/index.js";
import type { Metadata } from "./ag-ui-types.js";
import { mergeMetadata } from "./metadata.js";
import { applyJsonPatch } from "./reducer/index.js";

/** An event as read here: its `type`, metadata and whatever else it carries. */
type Loose = BaseEvent & Record<string, unknown>;

/** The pieces of one text message (`delta` of TEXT_MESSAGE_CONTENT) or tool call (of TOOL_CALL_ARGS). */
interface Pending {
  start?: Loose;
  pieces: Loose[];
  end?: Loose;
  /** Events that arrived while it was open, put after it. */
  held: Loose[];
  /** The metadata of the pieces, and of a start repeated after them. */
  pieceMetadata?: Metadata;
}

/** The three event types of a stream of pieces, and the field naming the stream. */
interface Kind {
  start: string;
  piece: string;
  end: string;
  id: "messageId" | "toolCallId";
}

const TEXT: Kind = { start: "TEXT_MESSAGE_START", piece: "TEXT_MESSAGE_CONTENT", end: "TEXT_MESSAGE_END", id: "messageId" };
const TOOL: Kind = { start: "TOOL_CALL_START", piece: "TOOL_CALL_ARGS", end: "TOOL_CALL_END", id: "toolCallId" };

/** Warns, unless `SUPPRESS_TRANSFORMATION_WARNINGS` is set, the switch theirs honours. */
function warn(message: string): void {
  if (typeof process !== "undefined" && process.env?.SUPPRESS_TRANSFORMATION_WARNINGS) return;
  console.warn(message);
}

/**
 * Compacts a run's recorded events, as theirs:
 *
 * - A text message's TEXT_MESSAGE_CONTENT events become one, its deltas joined, and its
 *   TEXT_MESSAGE_START, that content and its TEXT_MESSAGE_END are put together where the END was;
 *   a tool call's TOOL_CALL_ARGS likewise. Other events arriving while a message (else a tool call)
 *   is open are put after it. A repeated START keeps the first START's metadata (merged with its
 *   own when no piece came between); the joined piece carries the pieces' metadata merged.
 * - Between run boundaries (RUN_STARTED, RUN_FINISHED, RUN_ERROR), the STATE_SNAPSHOT and
 *   STATE_DELTA events become one STATE_SNAPSHOT of the state after the last of them (put before
 *   the boundary), carrying all their metadata merged; with no snapshot among them they stay as
 *   they are.
 * - Everything else keeps its order. Messages and calls never ended are put at the end.
 *
 * A STATE_DELTA that does not apply is skipped with a `console.warn` (unless
 * `SUPPRESS_TRANSFORMATION_WARNINGS` is set); our applier follows RFC 6902 where fast-json-patch,
 * which theirs uses, is laxer, so such a delta may fail here and apply there.
 *
 * Changes nothing it is given; the events it does not rewrite are the same objects. Never throws
 * for events of the model's shape.
 */
export function compactEvents<E extends BaseEvent>(events: readonly E[]): (E | AguiEvent)[] {
  const out: Loose[] = [];
  const texts = new Map<string, Pending>();
  const tools = new Map<string, Pending>();
  let state: Loose[] = [];

  for (const e of events as readonly Loose[]) {
    const kind = e.type === TEXT.start || e.type === TEXT.piece || e.type === TEXT.end ? TEXT : e.type === TOOL.start || e.type === TOOL.piece || e.type === TOOL.end ? TOOL : undefined;
    if (kind) {
      const open = kind === TEXT ? texts : tools;
      const id = e[kind.id] as string;
      let pending = open.get(id);
      if (pending === undefined) open.set(id, (pending = { pieces: [], held: [] }));
      if (e.type === kind.start) {
        if (pending.pieces.length === 0) pending.start = withMetadata(e, pending.start === undefined ? undefined : mergeMetadata(pending.start.metadata, e.metadata));
        else {
          // A START repeated after pieces: its fields replace the first's, but the metadata stays the
          // first START's, and its own joins the pieces'.
          pending.start = withMetadata(e, pending.start?.metadata, true);
          pending.pieceMetadata = mergeMetadata(pending.pieceMetadata, e.metadata);
        }
      } else if (e.type === kind.piece) {
        pending.pieces.push(e);
        pending.pieceMetadata = mergeMetadata(pending.pieceMetadata, e.metadata);
      } else {
        pending.end = e;
        flush(kind, id, pending, out);
        open.delete(id);
      }
    } else if (e.type === "RUN_STARTED" || e.type === "RUN_FINISHED" || e.type === "RUN_ERROR") {
      flushState(state, out);
      state = [];
      out.push(e);
    } else if (e.type === "STATE_SNAPSHOT" || e.type === "STATE_DELTA") {
      state.push(e);
    } else {
      const holder = firstStarted(texts) ?? firstStarted(tools);
      if (holder) holder.held.push(e);
      else out.push(e);
    }
  }
  for (const [id, pending] of texts) flush(TEXT, id, pending, out);
  for (const [id, pending] of tools) flush(TOOL, id, pending, out);
  flushState(state, out);
  return out as unknown as (E | AguiEvent)[];
}

/**
 * `event` with `metadata` instead of its own. Without `replace`, an `undefined` metadata keeps the
 * event as it is; with it, the event's own metadata goes whatever `metadata` is.
 */
function withMetadata(event: Loose, metadata: Metadata | undefined, replace = false): Loose {
  if (!replace) return metadata === undefined ? event : { ...event, metadata };
  const { metadata: _dropped, ...fields } = event;
  return (metadata === undefined ? fields : { ...fields, metadata }) as Loose;
}

/** The first message or call in `open` that has started (open ones only are kept there). */
function firstStarted(open: Map<string, Pending>): Pending | undefined {
  for (const pending of open.values()) if (pending.start && !pending.end) return pending;
  return undefined;
}

/** Puts one message or call on `out`: its start, its pieces joined, its end, then what it held. */
function flush(kind: Kind, id: string, pending: Pending, out: Loose[]): void {
  if (pending.start) out.push(pending.start);
  if (pending.pieces.length > 0) {
    const joined: Record<string, unknown> = { type: kind.piece, [kind.id]: id, delta: pending.pieces.map((piece) => piece.delta).join("") };
    if (pending.pieceMetadata !== undefined) joined.metadata = pending.pieceMetadata;
    out.push(joined as Loose);
  }
  if (pending.end) out.push(pending.end);
  out.push(...pending.held);
}

/** Puts a run's state events on `out`: one snapshot of their end state, or themselves when none is a snapshot. */
function flushState(events: Loose[], out: Loose[]): void {
  let last = -1;
  for (let i = events.length - 1; i >= 0 && last < 0; i--) if (events[i]!.type === "STATE_SNAPSHOT") last = i;
  if (last < 0) {
    out.push(...events);
    return;
  }
  let state: unknown = {};
  for (const event of events.slice(last)) {
    if (event.type === "STATE_SNAPSHOT") state = structuredClone(event.snapshot);
    else {
      try {
        state = applyJsonPatch(state, event.delta as JsonPatchOperation[]);
      } catch (error) {
        warn(
          `[ag-ui][compact] Failed to apply state patch while compacting:\nCurrent state: ${JSON.stringify(state, null, 2)}\nPatch operations: ${JSON.stringify(event.delta, null, 2)}\nError: ${error instanceof Error ? error.message : String(error)}`,
        );
      }
    }
  }
  let metadata: Metadata | undefined;
  for (const event of events) metadata = mergeMetadata(metadata, event.metadata);
  const snapshot: Record<string, unknown> = { type: "STATE_SNAPSHOT", snapshot: state as JsonValue };
  if (metadata !== undefined) snapshot.metadata = metadata;
  out.push(snapshot as Loose);
}
