/**
 * Version-gated downgrades (1.1, `basic/versioning`): what a client changes in what it sends to,
 * and reads from, a peer that predates parts of the protocol, named by the peer's ceiling
 * (`maxProtocolVersion`). Pure transformations: no I/O, no change of outcome, ids or order; a
 * lossy one warns. Gate 0.0.45 (THINKING_* to REASONING_*) is not here: the compatibility boundary
 * (retired.ts) translates those always.
 *
 * @module
 */
import type { AguiEvent } from "../model/index.js";
import type { RunAgentInput } from "../model/index.js";
import type { WarningHandler } from "./warnings.js";

/**
 * How far back a peer is: 0 current (protocol 1.0 or later, or a package version 0.0.58 or
 * later); 1 before subagents (0.0.57 or earlier); 2 before content parts and `parentRunId` (0.0.39
 * or earlier).
 */
export type DowngradeLevel = 0 | 1 | 2;

// A protocol version (`1.1`) or a package's (`0.0.57`, `v0.0.39-beta.1`): a suffix is ignored,
// which is exact for the gates, each the last release before a change.
const VERSION = /^v?(\d+)(?:\.(\d+)(?:\.(\d+))?)?(?:[-+].*)?$/;

/**
 * The {@link DowngradeLevel} a ceiling calls for. Versions compare number by number, missing ones
 * 0: protocol "1.0" and "1.1" are after every 0.0.x package version, so current.
 *
 * @throws {TypeError} When `version` is not a string of one to three dot-separated numbers,
 *   saying what was expected and what was found.
 */
export function downgradeLevelOf(version: unknown): DowngradeLevel {
  const [, major, minor = 0, patch = 0] = (typeof version === "string" && VERSION.exec(version)) || [];
  if (major === undefined) throw new TypeError(`maxProtocolVersion: expected a version ("1.1", "0.0.57"), found ${JSON.stringify(version)}`);
  return +major || +minor || +patch > 57 ? 0 : +patch > 39 ? 1 : 2;
}

/** A copy of `value` without its `subagentRunId`. */
function unowned<T>(value: T): T {
  const copy = { ...value } as T & { subagentRunId?: unknown };
  delete copy.subagentRunId;
  return copy;
}

/**
 * The input as a peer at `level` reads it: below current, `protocolVersion` is omitted and each
 * message's `subagentRunId` stripped (silently: the peer would ignore both); at level 2 also
 * `parentRunId`, and each message's array content flattened to its text parts' text joined
 * (absent content becomes ""), with a warning when that DROPS non-text parts. A message with a
 * text part whose `text` is not a string is left as it is, with a warning: a downgrade does not
 * repair. `input` itself is not changed.
 *
 * @throws What `warn` throws.
 */
export function downgradeInput(input: RunAgentInput, level: DowngradeLevel, warn: WarningHandler): RunAgentInput {
  if (!level) return input;
  const out = { ...input, messages: input.messages.map(unowned) };
  delete out.protocolVersion;
  if (level > 1) {
    delete out.parentRunId;
    const dropped: unknown[] = [];
    out.messages = out.messages.map((message, i) => {
      const { content = "" } = message as { content?: unknown };
      if (!Array.isArray(content)) return { ...message, content } as typeof message;
      let text = "";
      const lost: unknown[] = [];
      for (const part of content as ({ type?: unknown; text?: unknown } | null)[]) {
        if (part?.type !== "text") lost.push(part?.type ?? typeof part);
        else if (typeof part.text === "string") text += part.text;
        else {
          warn({ kind: "downgrade", path: `/messages/${i}`, message: `left message ${JSON.stringify(message.id)} unchanged: a text part's text is not a string` });
          return message;
        }
      }
      dropped.push(...lost);
      return { ...message, content: text } as typeof message;
    });
    if (dropped.length) warn({ kind: "downgrade", path: "/messages", message: `flattened content to text for maxProtocolVersion <= 0.0.39, which DROPS non-text parts (${[...new Set(dropped)].join(", ")})` });
  }
  return out;
}

/**
 * An event from a peer at `level` as the app gets it: at level 1 or 2, SUBAGENT_STARTED,
 * SUBAGENT_FINISHED and SUBAGENT_ERROR are dropped (`undefined`), with a warning; `subagentRunId`
 * is stripped from every other event, from MESSAGES_SNAPSHOT's messages, RUN_STARTED's
 * `input.messages` and RUN_FINISHED's `outcome.interrupts`, silently. Opaque payloads (RAW's
 * `event`, CUSTOM's `value`, state, activity content) are not looked into. `event` itself is not
 * changed.
 *
 * @throws What `warn` throws.
 */
export function downgradeEvent(event: AguiEvent, level: DowngradeLevel, warn: WarningHandler): AguiEvent | undefined {
  // Events ahead of middleware are not enforced yet: what is not an event is left to enforcement.
  const type = (event as { type?: unknown } | null)?.type;
  if (!level || typeof type !== "string") return event;
  if (type.startsWith("SUBAGENT_")) {
    warn({ kind: "downgrade", type, message: `dropping ${type}: the agent predates subagent support (maxProtocolVersion <= 0.0.57)` });
    return undefined;
  }
  // Only MESSAGES_SNAPSHOT has `messages`, RUN_STARTED `input`, RUN_FINISHED `outcome.interrupts`
  // (the model keeps no key a type does not define).
  const out = unowned(event) as Loose;
  if (out.messages) out.messages = out.messages.map(unowned);
  if (out.input) out.input = { ...out.input, messages: out.input.messages.map(unowned) };
  if (out.outcome?.interrupts) out.outcome = { ...out.outcome, interrupts: out.outcome.interrupts.map(unowned) };
  return out as AguiEvent;
}

type Loose = { messages?: unknown[]; input?: { messages: unknown[] }; outcome?: { interrupts?: unknown[] } };
