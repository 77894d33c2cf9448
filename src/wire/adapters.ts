/**
 * Where the JSON form of an AG-UI 1.0 event differs from the plain mapping of its protobuf message,
 * the facts of `@ag-ui/proto` 1.0's wire format, kept as small functions the generated codec calls
 * (buf.gen.yaml lists the messages under `adapt`):
 *
 * - A message's or tool result's `content` is text or a list of parts, and an activity message's is
 *   an object; the wire holds each form in a field of its own (`content`, `content_parts`,
 *   `activity_content`). A user or tool message with neither text nor parts has an empty list.
 * - RUN_FINISHED's and SUBAGENT_FINISHED's `outcome` is an object on `type`; the wire holds the type
 *   as a string (empty for none) and the outcome's lists as fields of the event.
 * - `usage` is absent from an event that has none, as the other side's decoder leaves it.
 * - RUN_STARTED's `input` always has `messages`, a required list that is empty when the wire holds
 *   none.
 *
 * `toWire…` builds the wire shape from a validated event (or message) without changing it;
 * `fromWire…` turns a freshly read wire object into the model's shape in place, and refuses forms
 * no encoder writes (two content forms, lists without their outcome).
 *
 * @module
 */
import { assignOwn } from "../util/index.js";
import { malformed } from "./reader.js";

type Loose = Record<string, unknown>;

// The adapters are generic over the generated codecs' `…Fields` types rather than importing them:
// the codecs call the adapters, so an import back would close a circle. Each names only the
// fields it reads, and gives back the type it was given.

/** What the message adapters read: the role, and the content as the model holds it. */
interface MessageShape {
  role: string;
  content?: unknown;
}

/** What the TOOL_CALL_RESULT adapter reads: the content as the model holds it. */
interface ContentShape {
  content?: unknown;
}

/** What the RUN_STARTED input adapter touches: the message list. */
interface InputShape {
  messages?: unknown[];
}

/** Roles whose `content` may be a list of parts, and is one on the wire when the text is absent. */
const PARTS_ROLES: ReadonlySet<unknown> = new Set(["user", "tool"]);

/**
 * The wire shape of a message: its `content` moved to `contentParts` or `activityContent` when it
 * is a list or an object.
 *
 * @throws Never.
 */
export function toWireMessage<T extends MessageShape>(m: T): T {
  const content: unknown = m.content;
  if (Array.isArray(content)) return withFields(m, { content: undefined, contentParts: content });
  if (m.role === "activity") return withFields(m, { content: undefined, activityContent: content });
  return m;
}

/** A copy of `o` with `fields` set (see assignOwn for why not a spread). */
function withFields<T extends object>(o: T, fields: Record<string, unknown>): T {
  return assignOwn(assignOwn({} as T, o), fields);
}

/**
 * The model shape of a message just read: `content` from whichever wire field holds it.
 *
 * @throws {AguiWireError} `malformed_frame` when the message holds a content form its role does not
 *   have, or two forms.
 */
export function fromWireMessage<T extends MessageShape>(v: T): T {
  const m = v as unknown as Loose;
  const parts = m.contentParts;
  const object = m.activityContent;
  if (PARTS_ROLES.has(m.role)) {
    if (object !== undefined) throw malformed(`a ${String(m.role)} message holds activity content`);
    if (m.content === undefined) m.content = parts ?? [];
    else if (parts !== undefined) throw malformed(`a ${String(m.role)} message holds both text content and content parts`);
  } else if (m.role === "activity") {
    if (parts !== undefined) throw malformed("an activity message holds content parts");
    if (m.content !== undefined) throw malformed("an activity message holds text content besides its activity content");
    m.content = object;
  } else if (parts !== undefined || object !== undefined) {
    throw malformed(`a ${JSON.stringify(m.role)} message holds ${parts !== undefined ? "content parts" : "activity content"}`);
  }
  if (parts !== undefined) delete m.contentParts;
  if (object !== undefined) delete m.activityContent;
  return v;
}

/**
 * The wire shape of TOOL_CALL_RESULT: a list `content` goes to `contentParts`.
 *
 * @throws Never.
 */
export function toWireToolCallResultEvent<T extends ContentShape>(e: T): T {
  const content: unknown = e.content;
  return Array.isArray(content) ? withFields(e, { content: undefined, contentParts: content }) : e;
}

/**
 * The model shape of a TOOL_CALL_RESULT just read: its text, or else its parts (maybe none).
 *
 * @throws {AguiWireError} `malformed_frame` when it holds both text and parts.
 */
export function fromWireToolCallResultEvent<T extends ContentShape>(v: T): T {
  const e = v as unknown as Loose;
  const parts = e.contentParts as unknown[];
  if (e.content === undefined) e.content = parts;
  else if (parts.length > 0) throw malformed("TOOL_CALL_RESULT holds both text content and content parts");
  delete e.contentParts;
  return v;
}

/**
 * The lists an event's outcome may hold, each on the wire as a field of the event: its key, the
 * outcome type it belongs to, what an error calls it, and whether that outcome always carries it
 * (an interrupt outcome has its interrupts, even none, which the model then refuses, as 1.0 does).
 */
type OutcomeLists = readonly (readonly [key: string, owner: string, what: string, always: boolean])[];

const RUN_OUTCOME: OutcomeLists = [
  ["pendingToolCallIds", "success", "pending tool calls", false],
  ["interrupts", "interrupt", "interrupts", true],
];
const SUBAGENT_OUTCOME: OutcomeLists = [["interruptIds", "suspended", "interrupt ids", false]];

/** The wire shape of an event with an outcome: its type as a string ("" for none), its lists as the event's. */
function unfoldOutcome<T extends object>(e: T, lists: OutcomeLists): T {
  const outcome = (e as Loose).outcome as Loose | undefined;
  const wire = withFields(e as Loose, { outcome: outcome === undefined ? "" : outcome.type });
  for (const [key] of lists) wire[key] = (outcome?.[key] as unknown[] | undefined) ?? [];
  return wire as T;
}

/**
 * Folds a just-read event's outcome type and lists into the model's outcome object, in place.
 *
 * @throws {AguiWireError} `malformed_frame` for a non-empty list beside another outcome type.
 */
function foldOutcome(e: Loose, event: string, lists: OutcomeLists): void {
  const type = e.outcome as string;
  const outcome: Loose | undefined = type === "" ? undefined : { type };
  for (const [key, owner, what, always] of lists) {
    const list = e[key] as unknown[];
    if (list.length > 0 && type !== owner) throw malformed(`${event} lists ${what} with outcome ${JSON.stringify(type)}, expected "${owner}"`);
    if (outcome !== undefined && type === owner && (always || list.length > 0)) outcome[key] = list;
    delete e[key];
  }
  if (outcome === undefined) delete e.outcome;
  else e.outcome = outcome;
}

/**
 * The wire shape of RUN_FINISHED: the outcome's type as a string, its lists as the event's.
 *
 * @throws Never.
 */
export function toWireRunFinishedEvent<T extends object>(e: T): T {
  return unfoldOutcome(e, RUN_OUTCOME);
}

/**
 * The model shape of a RUN_FINISHED just read: the outcome as an object, no empty `usage`.
 *
 * @throws {AguiWireError} `malformed_frame` for pending tool calls without a success outcome, or
 *   interrupts without an interrupt outcome.
 */
export function fromWireRunFinishedEvent<T extends object>(v: T): T {
  foldOutcome(v as unknown as Loose, "RUN_FINISHED", RUN_OUTCOME);
  dropEmptyUsage(v as unknown as Loose);
  return v;
}

/**
 * The wire shape of RUN_ERROR: nothing to change; `usage` absent is written as no entries.
 *
 * @throws Never.
 */
export function toWireRunErrorEvent<T extends object>(e: T): T {
  return e;
}

/**
 * The model shape of a RUN_ERROR just read: no empty `usage`.
 *
 * @throws Never.
 */
export function fromWireRunErrorEvent<T extends object>(v: T): T {
  dropEmptyUsage(v as unknown as Loose);
  return v;
}

/** `usage` as the other side's decoder leaves it: absent when the wire held no entries. */
function dropEmptyUsage(e: Loose): void {
  if ((e.usage as unknown[]).length === 0) delete e.usage;
}

/**
 * The wire shape of SUBAGENT_FINISHED: the outcome's type as a string, its interrupt ids as the
 * event's.
 *
 * @throws Never.
 */
export function toWireSubagentFinishedEvent<T extends object>(e: T): T {
  return unfoldOutcome(e, SUBAGENT_OUTCOME);
}

/**
 * The model shape of a SUBAGENT_FINISHED just read: the outcome as an object.
 *
 * @throws {AguiWireError} `malformed_frame` for interrupt ids without a suspended outcome.
 */
export function fromWireSubagentFinishedEvent<T extends object>(v: T): T {
  foldOutcome(v as unknown as Loose, "SUBAGENT_FINISHED", SUBAGENT_OUTCOME);
  return v;
}

/**
 * The wire shape of a RUN_STARTED input: nothing to change.
 *
 * @throws Never.
 */
export function toWireRunAgentInput<T extends InputShape>(v: T): T {
  return v;
}

/**
 * The model shape of a RUN_STARTED input just read: `messages` is required, so an empty list is
 * one, not an absent field.
 *
 * @throws Never.
 */
export function fromWireRunAgentInput<T extends InputShape>(v: T): T {
  v.messages ??= [];
  return v;
}
