/**
 * The snapshot trace: one run of an agent that shares its state with the page (a trip planner a
 * user edits alongside the agent), where JSON values carry most of the bytes: every step sends a
 * STATE_SNAPSHOT of a board that grows to 40 cards, STATE_DELTAs, an ACTIVITY_SNAPSHOT and
 * ACTIVITY_DELTA of a progress card, a CUSTOM event with a value, and a short tool call and
 * assistant message between them. It is where protobuf's `Struct` (a message per value, every key
 * repeated, 9 bytes per number) costs most against JSON. Deterministic.
 *
 * @module
 */
import { prng } from "../test/fixtures/corpus.js";
import type { AguiEventInput, JsonValue } from "../src/index.js";

const PLACES = ["Zürich", "Luzern", "Bern", "Genève", "Lugano", "Zermatt", "St. Moritz", "Basel", "Interlaken", "Montreux"];
const KINDS = ["hotel", "train", "restaurant", "museum", "hike", "boat"];
const WORDS = [" the", " train", " leaves", " at", " 9", ":", "15", " from", " Zürich", " HB", ",", " and", " I", " added", " a", " stop", ".", " café"];

/** Events per step of {@link snapshotTrace}. */
const PER_STEP = 25;

/**
 * One run of `n` events (rounded to whole steps of 25, at least one): RUN_STARTED, steps, then
 * RUN_FINISHED. Each step: STEP_STARTED, STATE_SNAPSHOT (the board: `4 + step` cards of ten fields
 * each, at most 40, with a summary, filters and per-day totals), 3 STATE_DELTAs of 1 to 4
 * operations with object values, an ACTIVITY_SNAPSHOT and an ACTIVITY_DELTA, a CUSTOM event, a
 * tool call (start, 3 argument fragments, end, result), an assistant message of 8 deltas,
 * STEP_FINISHED.
 */
export function snapshotTrace(n: number): AguiEventInput[] {
  const random = prng(0x5a9c7);
  const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)]!;
  const threadId = "thread-4c1d2e7f";
  const runId = "run-9b2f01aa";
  const steps = Math.max(1, Math.round((n - 2) / PER_STEP));
  const cards: JsonValue[] = [];
  const events: AguiEventInput[] = [{ type: "RUN_STARTED", threadId, runId }];
  for (let step = 0; step < steps; step++) {
    const stepName = `plan-${step}`;
    events.push({ type: "STEP_STARTED", stepName });
    while (cards.length < Math.min(40, 4 + step)) {
      const i = cards.length;
      cards.push({
        id: `card-${i}`,
        kind: pick(KINDS),
        title: `${pick(PLACES)} ${pick(KINDS)} ${i}`,
        day: 1 + (i % 7),
        start: `${8 + (i % 10)}:${i % 2 ? "30" : "00"}`,
        price: Math.round(random() * 40000) / 100,
        rating: 3 + Math.round(random() * 20) / 10,
        booked: random() < 0.5,
        tags: [pick(KINDS), pick(PLACES)],
        notes: random() < 0.3 ? null : `${pick(PLACES)} — ${pick(KINDS)} near the station`,
      });
    }
    const total = cards.reduce<number>((sum, c) => sum + ((c as { price: number }).price ?? 0), 0);
    events.push({
      type: "STATE_SNAPSHOT",
      snapshot: {
        trip: { id: "trip-2026-swiss", travellers: 2, currency: "CHF", from: "2026-12-01", to: "2026-12-07" },
        filters: { kinds: ["hotel", "train", "restaurant"], maxPrice: 400, onlyBooked: false },
        cards: cards.slice(),
        totals: { count: cards.length, price: Math.round(total * 100) / 100, perDay: [1, 2, 3, 4, 5, 6, 7].map((d) => cards.filter((c) => (c as { day: number }).day === d).length) },
        step,
        updatedBy: "agent",
      },
    });
    for (let d = 0; d < 3; d++) {
      const target = Math.floor(random() * cards.length);
      const ops = 1 + Math.floor(random() * 4);
      const delta = [];
      for (let o = 0; o < ops; o++) {
        if (o === 0) delta.push({ op: "replace" as const, path: `/cards/${target}/booked`, value: true });
        else if (o === 1) delta.push({ op: "replace" as const, path: `/cards/${target}/price`, value: Math.round(random() * 40000) / 100 });
        else if (o === 2) delta.push({ op: "add" as const, path: `/cards/${target}/tags/-`, value: pick(PLACES) });
        else delta.push({ op: "replace" as const, path: "/totals", value: { count: cards.length, price: Math.round(total * 100) / 100, changed: [target] } });
      }
      events.push({ type: "STATE_DELTA", delta });
    }
    const activityId = `activity-${step}`;
    events.push({
      type: "ACTIVITY_SNAPSHOT",
      messageId: activityId,
      activityType: "planner-progress",
      content: { title: `Planning day ${1 + (step % 7)}`, progress: 0, sources: PLACES.slice(0, 4).map((p, i) => ({ name: p, status: i === 0 ? "done" : "pending" })) },
    });
    events.push({ type: "ACTIVITY_DELTA", messageId: activityId, activityType: "planner-progress", patch: [{ op: "replace", path: "/progress", value: 0.5 }, { op: "replace", path: "/sources/1/status", value: "done" }] });
    events.push({ type: "CUSTOM", name: "planner.metrics", value: { step, cards: cards.length, latencyMs: 120 + Math.floor(random() * 300), cache: { hits: step * 3, misses: 2 } } });
    const toolCallId = `call-${step}`;
    events.push({ type: "TOOL_CALL_START", toolCallId, toolCallName: "find_connections" });
    const args = JSON.stringify({ from: pick(PLACES), to: pick(PLACES), day: 1 + (step % 7) });
    for (let i = 0; i < 3; i++) events.push({ type: "TOOL_CALL_ARGS", toolCallId, delta: args.slice((args.length * i) / 3, (args.length * (i + 1)) / 3) });
    events.push({ type: "TOOL_CALL_END", toolCallId });
    events.push({ type: "TOOL_CALL_RESULT", messageId: `result-${step}`, toolCallId, content: JSON.stringify({ connections: 3, fastest: "IC 8", minutes: 56 }), role: "tool" });
    const messageId = `msg-${step}`;
    events.push({ type: "TEXT_MESSAGE_START", messageId, role: "assistant" });
    for (let i = 0; i < 8; i++) events.push({ type: "TEXT_MESSAGE_CONTENT", messageId, delta: pick(WORDS) });
    events.push({ type: "TEXT_MESSAGE_END", messageId });
    events.push({ type: "STEP_FINISHED", stepName });
  }
  events.push({ type: "RUN_FINISHED", threadId, runId });
  return events;
}
