/**
 * The token trace: one run as an LLM streams it, where almost every event is a one-token
 * TEXT_MESSAGE_CONTENT (a delta of 1 to 12 bytes, most of them a word with its leading space),
 * with the rest of a typical agent turn around the tokens: a tool call streamed as argument
 * fragments and its result, a state snapshot and deltas, and a closing messages snapshot. Ids are
 * shaped as real agents make them (UUIDs for threads, runs and messages, OpenAI's `call_…` for tool
 * calls). Deterministic: the same `n` gives the same events.
 *
 * The mixed trace (test/fixtures/corpus.ts) has 1 to 3 words per delta and a snapshot every 250
 * events, which flatters a binary transport; this one is what a chat run costs per event.
 *
 * @module
 */
import { prng } from "../test/fixtures/corpus.js";
import type { AguiEventInput, JsonValue, Message } from "../src/index.js";

/**
 * Tokens as a BPE tokenizer cuts English prose, with their leading spaces, punctuation, numbers,
 * markdown, a few non-ASCII ones (accents, a degree sign, CJK, an emoji): 1 to 12 UTF-8 bytes each.
 */
const TOKENS = [
  " the", " weather", " in", " Z", "ürich", " is", " expected", " to", " be", " mild", " this", " week", ",", ".",
  " with", " a", " chance", " of", " rain", " on", " Thursday", " afternoon", " Temper", "atures", " around", " 21",
  "°C", " during", " day", " and", " 12", " at", " night", "\n\n", "**", "Mon", "day", ":", " sunny", " -", " 🌤",
  " I", " booked", " table", " for", " two", " at", " Ristorante", " Bel", "lini", " 19", ":", "30", " café",
  " 東京", " Let", " me", " know", " if", " you", "'d", " like", " anything", " else", "!", " umbrella", " recommend",
  "ation", " light", " jacket", " should", " be", " enough", " forecast", " looks", " quite", " pleasant",
];

/** A v4-shaped UUID from the generator's randomness. */
function uuid(random: () => number): string {
  const hex = (n: number) => Array.from({ length: n }, () => Math.floor(random() * 16).toString(16)).join("");
  return `${hex(8)}-${hex(4)}-4${hex(3)}-${"89ab"[Math.floor(random() * 4)]}${hex(3)}-${hex(12)}`;
}

/** An OpenAI-style tool call id: `call_` and 24 letters and digits. */
function callId(random: () => number): string {
  const chars = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
  return "call_" + Array.from({ length: 24 }, () => chars[Math.floor(random() * chars.length)]).join("");
}

/** `text` cut into pieces of 1 to 4 characters, as a model streams a tool call's JSON arguments. */
function argumentTokens(text: string, random: () => number): string[] {
  const out: string[] = [];
  for (let i = 0; i < text.length; ) {
    const n = 1 + Math.floor(random() * 4);
    out.push(text.slice(i, i + n));
    i += n;
  }
  return out;
}

/** Events of {@link tokenTrace} that are not text deltas, besides the tool call's argument fragments. */
const FIXED = 14;

/**
 * One run of about `n` events (exactly `n` when `n` leaves room for the fixed events): RUN_STARTED,
 * a STATE_SNAPSHOT, an assistant message, a tool call whose arguments stream in fragments and its
 * TOOL_CALL_RESULT, a STATE_DELTA, a second assistant message, another STATE_DELTA and
 * STATE_SNAPSHOT, a MESSAGES_SNAPSHOT of the conversation, RUN_FINISHED. At 1,000 events, 97% are
 * one-token TEXT_MESSAGE_CONTENT events.
 */
export function tokenTrace(n: number): AguiEventInput[] {
  const random = prng(0x70c3e);
  const threadId = uuid(random);
  const runId = uuid(random);
  const userId = uuid(random);
  const first = uuid(random);
  const second = uuid(random);
  const resultId = uuid(random);
  const toolCallId = callId(random);
  const args = JSON.stringify({ city: "Zürich", date: "2026-11-27", partySize: 2, time: "19:30" });
  const argPieces = argumentTokens(args, random);
  const deltas = Math.max(2, n - FIXED - argPieces.length);
  const firstDeltas = Math.floor(deltas * 0.4);
  const message = (messageId: string, count: number, out: AguiEventInput[]): string => {
    let text = "";
    for (let i = 0; i < count; i++) {
      const delta = TOKENS[Math.floor(random() * TOKENS.length)]!;
      text += delta;
      out.push({ type: "TEXT_MESSAGE_CONTENT", messageId, delta });
    }
    return text;
  };
  const state: { [key: string]: JsonValue } = {
    city: "Zürich",
    units: "metric",
    booking: null,
    steps: [{ id: "forecast", status: "running" }],
  };
  const result = JSON.stringify({ confirmed: true, reservationId: "R-48213", restaurant: "Ristorante Bellini", time: "19:30" });

  const events: AguiEventInput[] = [{ type: "RUN_STARTED", threadId, runId }];
  events.push({ type: "STATE_SNAPSHOT", snapshot: structuredClone(state) });
  events.push({ type: "TEXT_MESSAGE_START", messageId: first, role: "assistant" });
  const firstText = message(first, firstDeltas, events);
  events.push({ type: "TEXT_MESSAGE_END", messageId: first });
  events.push({ type: "TOOL_CALL_START", toolCallId, toolCallName: "book_table", parentMessageId: first });
  for (const delta of argPieces) events.push({ type: "TOOL_CALL_ARGS", toolCallId, delta });
  events.push({ type: "TOOL_CALL_END", toolCallId });
  events.push({ type: "TOOL_CALL_RESULT", messageId: resultId, toolCallId, content: result, role: "tool" });
  events.push({
    type: "STATE_DELTA",
    delta: [
      { op: "replace", path: "/booking", value: { id: "R-48213", time: "19:30", partySize: 2 } },
      { op: "replace", path: "/steps/0/status", value: "done" },
    ],
  });
  events.push({ type: "TEXT_MESSAGE_START", messageId: second, role: "assistant" });
  const secondText = message(second, deltas - firstDeltas, events);
  events.push({ type: "TEXT_MESSAGE_END", messageId: second });
  events.push({ type: "STATE_DELTA", delta: [{ op: "add", path: "/steps/-", value: { id: "answer", status: "done" } }] });
  events.push({
    type: "STATE_SNAPSHOT",
    snapshot: { ...state, booking: { id: "R-48213", time: "19:30", partySize: 2 }, steps: [{ id: "forecast", status: "done" }, { id: "answer", status: "done" }] },
  });
  const messages: Message[] = [
    { id: userId, role: "user", content: "What's the weather in Zürich this week? And book me a table for two tonight." },
    { id: first, role: "assistant", content: firstText, toolCalls: [{ id: toolCallId, type: "function", function: { name: "book_table", arguments: args } }] },
    { id: resultId, role: "tool", toolCallId, content: result },
    { id: second, role: "assistant", content: secondText },
  ];
  events.push({ type: "MESSAGES_SNAPSHOT", messages });
  events.push({ type: "RUN_FINISHED", threadId, runId });
  return events;
}
