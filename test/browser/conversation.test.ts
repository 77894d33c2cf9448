/**
 * A chat front end in headless Chromium: the page runs our HttpAgent with `runAgent` against our
 * server, over binary frames and over SSE, and renders `agent.messages` and `agent.state` from its
 * subscribers (test/browser/conversation-page.ts, with the demo's renderer). The conversation
 * must grow on the page as the events arrive, delta by delta, and end as the agent holds it.
 *
 * Needs Debian's `chromium` at /usr/bin/chromium (`apt-get install -y chromium`). Without it the
 * suite is skipped, except under CI, where a missing browser must fail the run.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Message } from "../../src/client/index.js";
import { BINARY_MEDIA_TYPE, SSE_MEDIA_TYPE, type RunAgentInput } from "../../src/index.js";
import { createNodeHandler } from "../../src/server/index.js";
import {
  ANSWER,
  conversationIds,
  conversationRun,
  FINAL_STATE,
  FORECAST,
  INTRO,
  QUESTION,
  REASONING,
  RESULT,
  TOOL,
  words,
} from "../../demo/conversation-run.js";
import { available, openTestPage, warnIfUnavailable, type TestPage } from "./chromium.js";
import type { ConversationPageOutcome, ConversationPageRun, ShownMessage } from "./conversation-page.js";

warnIfUnavailable("test/browser/conversation.test.ts");

const question: Message = { id: "user-1", role: "user", content: QUESTION };

/** The messages the scripted run adds, as the agent must hold them at its end. */
function addedMessages(runId: string): Message[] {
  const ids = conversationIds(runId);
  return [
    { id: ids.plan, role: "activity", activityType: "PLAN", content: { steps: [{ title: "Look up the forecast", done: true }, { title: "Answer", done: true }] } },
    { id: ids.reasoning, role: "reasoning", content: REASONING },
    { id: ids.intro, role: "assistant", content: INTRO, toolCalls: [{ id: ids.toolCall, type: "function", function: TOOL }] },
    { id: ids.toolResult, role: "tool", toolCallId: ids.toolCall, content: JSON.stringify(FORECAST) },
    { id: ids.answer, role: "assistant", content: ANSWER },
  ];
}

/** What a reader should see for `messages`, worked out from the messages (not from the DOM). */
function expectedShown(messages: Message[]): ShownMessage[] {
  const calls = messages.flatMap((m) => (m.role === "assistant" ? (m.toolCalls ?? []) : []));
  return messages.map((m): ShownMessage => {
    switch (m.role) {
      case "activity":
        return { id: m.id, role: m.role, label: `activity ${m.activityType}`, text: JSON.stringify(m.content), activityType: m.activityType };
      case "tool": {
        const call = calls.find((c) => c.id === m.toolCallId);
        return { id: m.id, role: m.role, label: `tool result (${call!.function.name})`, text: String(m.content), toolCallId: m.toolCallId };
      }
      case "assistant": {
        const shown: ShownMessage = { id: m.id, role: m.role, label: m.role, text: m.content ?? "" };
        if (m.toolCalls?.length) shown.toolCalls = m.toolCalls.map((c) => ({ id: c.id, name: c.function.name, arguments: c.function.arguments }));
        return shown;
      }
      default:
        return { id: m.id, role: m.role, label: m.role, text: String(m.content) };
    }
  });
}

/** Each prefix of `parts` joined: what a message streamed from them shows after each delta, from "". */
function growing(parts: string[]): string[] {
  return parts.reduce<string[]>((all, part) => [...all, all.at(-1)! + part], [""]);
}

/** The distinct values `pick` read in successive snapshots (a repeat of the previous one dropped). */
function steps(snapshots: ShownMessage[][], pick: (shown: ShownMessage[]) => string | undefined): string[] {
  const seen: string[] = [];
  for (const snapshot of snapshots) {
    const value = pick(snapshot);
    if (value !== undefined && value !== seen.at(-1)) seen.push(value);
  }
  return seen;
}

describe.skipIf(!available)("a conversation rendered from agent.messages in headless Chromium", () => {
  const inputs: RunAgentInput[] = [];
  let page: TestPage<ConversationPageRun, ConversationPageOutcome> | undefined;

  beforeAll(async () => {
    const agent = createNodeHandler(function* (input: RunAgentInput) {
      inputs.push(input);
      yield* conversationRun(input);
    });
    page = await openTestPage("conversation-page.ts", "conversationPage", { "/agent": agent });
  });

  afterAll(async () => {
    await page?.close();
  });

  const run = (options: ConversationPageRun): Promise<ConversationPageOutcome> => page!.run(options);

  for (const [transport, mediaType] of [
    ["binary", BINARY_MEDIA_TYPE],
    ["sse", SSE_MEDIA_TYPE],
  ] as const) {
    describe(`over ${transport}`, () => {
      const runId = `run-${transport}`;
      const ids = conversationIds(runId);
      let outcome: ConversationPageOutcome;

      beforeAll(async () => {
        outcome = await run({ url: "/agent", transport, initialMessages: [question], runId });
      });

      it(`asks for ${mediaType}, gets it, and sends the conversation so far`, () => {
        expect(outcome.error).toBeUndefined();
        expect(outcome.contentTypes).toEqual([mediaType]);
        const input = inputs.find((i) => i.runId === runId)!;
        expect(input.messages).toEqual([question]);
      });

      it("ends showing the whole turn: question, plan, reasoning, text with its tool call, the result, the answer, the state", () => {
        const expected = [question, ...addedMessages(runId)];
        expect(outcome.messages).toEqual(expected);
        expect(outcome.shown).toEqual(expectedShown(outcome.messages));
        expect(outcome.shown.map((m) => m.label)).toEqual(["user", "activity PLAN", "reasoning", "assistant", "tool result (get_forecast)", "assistant"]);
        expect(outcome.shown.at(-1)!.text).toBe(ANSWER);
        expect(outcome.state).toEqual(FINAL_STATE);
        expect(outcome.shownState).toBe(JSON.stringify(FINAL_STATE, null, 2));
      });

      it("rendered the assistant's text, the reasoning and the tool's arguments delta by delta", () => {
        const text = (id: string) => (shown: ShownMessage[]) => shown.find((m) => m.id === id)?.text;
        expect(steps(outcome.snapshots, text(ids.intro))).toEqual(growing(words(INTRO)));
        expect(steps(outcome.snapshots, text(ids.answer))).toEqual(growing(words(ANSWER)));
        expect(steps(outcome.snapshots, text(ids.reasoning))).toEqual(growing(words(REASONING)));
        const args = (shown: ShownMessage[]) => shown.find((m) => m.id === ids.intro)?.toolCalls?.[0]?.arguments;
        const chunks = TOOL.arguments.match(/.{1,8}/g)!;
        expect(steps(outcome.snapshots, args)).toEqual(growing(chunks));
        // Each step was a render of its own, and the last one is the final page.
        expect(outcome.snapshots.length).toBeGreaterThan(words(INTRO).length + words(ANSWER).length);
        expect(outcome.snapshots.at(-1)).toEqual(outcome.shown);
      });

      it("grew the conversation one message at a time, in order", () => {
        const order = steps(outcome.snapshots, (shown) => shown.map((m) => m.id).join(" "));
        expect(order).toEqual([
          ["user-1", ids.plan],
          ["user-1", ids.plan, ids.reasoning],
          ["user-1", ids.plan, ids.reasoning, ids.intro],
          ["user-1", ids.plan, ids.reasoning, ids.intro, ids.toolResult],
          ["user-1", ids.plan, ids.reasoning, ids.intro, ids.toolResult, ids.answer],
        ].map((list) => list.join(" ")));
      });

      it("rendered each state change", () => {
        const initial = { city: null, forecast: [], units: "metric", steps: 0 };
        const afterTool = { ...FINAL_STATE, steps: 1 };
        expect(outcome.stateSnapshots).toEqual([initial, afterTool, FINAL_STATE].map((state) => JSON.stringify(state, null, 2)));
      });

      it("resolves runAgent to the run's result and the messages it added", () => {
        expect(outcome.result).toEqual(RESULT);
        expect(outcome.newMessages).toEqual(outcome.messages.slice(1));
        expect(outcome.newMessages).toEqual(addedMessages(runId));
        // onNewMessage told of each message as it was added (the activity) or completed (the rest).
        expect(outcome.newMessageIds).toEqual([ids.plan, ids.reasoning, ids.intro, ids.toolResult, ids.answer]);
      });
    });
  }
});
