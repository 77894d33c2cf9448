/**
 * The demo agent's scripted run: a whole conversational turn, with no model and no key. The agent
 * plans (an activity), thinks (reasoning), says it will look the weather up (text), calls a tool
 * whose result comes back, keeps its state, and answers. `sample-run.ts` is the shorter run the
 * library's own tests use.
 */
import { EventType, type AguiEventInput, type RunAgentInput } from "../src/index.js";

/** What the user asks; the demo page sends it as the conversation's first message. */
export const QUESTION = "What's the weather in Lisbon?";
/** The agent's reasoning, streamed word by word. */
export const REASONING = "The user wants the forecast for Lisbon. I will ask the forecast tool for three days, in metric units.";
/** What the agent says before it calls the tool, streamed word by word. */
export const INTRO = "Let me look up the weather in Lisbon for you.";
/** The agent's answer once it has the forecast, streamed word by word. */
export const ANSWER = "Lisbon looks pleasant: sunny on Monday (21.5 °C), cloudy on Tuesday (19 °C) and sunny again on Wednesday (22 °C).";
/** The tool the agent calls, and the arguments it sends (streamed 8 characters at a time). */
export const TOOL = { name: "get_forecast", arguments: JSON.stringify({ city: "Lisbon", days: 3, units: "metric" }) };
/** What the tool returns. */
export const FORECAST = [
  { day: "Mon", high: 21.5, low: 14, sky: "sunny" },
  { day: "Tue", high: 19, low: 13.5, sky: "cloudy" },
  { day: "Wed", high: 22, low: 15, sky: "sunny" },
];
/** The agent's state when the run ends. */
export const FINAL_STATE = { city: "Lisbon", forecast: FORECAST, units: "metric", steps: 2 };
/** The run's `result` (RUN_FINISHED). */
export const RESULT = { city: "Lisbon", days: FORECAST.length };

/** `text` split after each space, as a model streams words. */
export function words(text: string): string[] {
  return text.split(/(?<= )/);
}

/** The ids the run gives its messages and tool call, from its `runId`. */
export function conversationIds(runId: string) {
  return {
    plan: `${runId}-plan`,
    reasoning: `${runId}-reasoning-1`,
    intro: `${runId}-msg-1`,
    toolCall: `${runId}-call-1`,
    toolResult: `${runId}-tool-1`,
    answer: `${runId}-msg-2`,
  };
}

/** A text message (role assistant) of `text`, streamed word by word. */
function* textMessage(messageId: string, text: string): Generator<AguiEventInput> {
  yield { type: EventType.TEXT_MESSAGE_START, messageId, role: "assistant" };
  for (const delta of words(text)) yield { type: EventType.TEXT_MESSAGE_CONTENT, messageId, delta };
  yield { type: EventType.TEXT_MESSAGE_END, messageId };
}

/**
 * The events of one scripted conversational turn for `input`, in order.
 *
 * @throws Never.
 */
export function* conversationRun(input: Pick<RunAgentInput, "threadId" | "runId">): Generator<AguiEventInput> {
  const { threadId, runId } = input;
  const ids = conversationIds(runId);
  yield { type: EventType.RUN_STARTED, threadId, runId, timestamp: Date.now() };
  yield { type: EventType.STEP_STARTED, stepName: "answer" };
  yield { type: EventType.STATE_SNAPSHOT, snapshot: { city: null, forecast: [], units: "metric", steps: 0 } };
  yield {
    type: EventType.ACTIVITY_SNAPSHOT,
    messageId: ids.plan,
    activityType: "PLAN",
    content: { steps: [{ title: "Look up the forecast", done: false }, { title: "Answer", done: false }] },
  };

  yield { type: EventType.REASONING_START, messageId: ids.reasoning };
  yield { type: EventType.REASONING_MESSAGE_START, messageId: ids.reasoning, role: "reasoning" };
  for (const delta of words(REASONING)) yield { type: EventType.REASONING_MESSAGE_CONTENT, messageId: ids.reasoning, delta };
  yield { type: EventType.REASONING_MESSAGE_END, messageId: ids.reasoning };
  yield { type: EventType.REASONING_END, messageId: ids.reasoning };

  yield* textMessage(ids.intro, INTRO);
  yield { type: EventType.TOOL_CALL_START, toolCallId: ids.toolCall, toolCallName: TOOL.name, parentMessageId: ids.intro };
  for (let i = 0; i < TOOL.arguments.length; i += 8) {
    yield { type: EventType.TOOL_CALL_ARGS, toolCallId: ids.toolCall, delta: TOOL.arguments.slice(i, i + 8) };
  }
  yield { type: EventType.TOOL_CALL_END, toolCallId: ids.toolCall };
  yield { type: EventType.TOOL_CALL_RESULT, messageId: ids.toolResult, toolCallId: ids.toolCall, role: "tool", content: JSON.stringify(FORECAST) };
  yield {
    type: EventType.STATE_DELTA,
    delta: [
      { op: "replace", path: "/city", value: "Lisbon" },
      { op: "replace", path: "/forecast", value: FORECAST },
      { op: "replace", path: "/steps", value: 1 },
    ],
  };
  yield { type: EventType.ACTIVITY_DELTA, messageId: ids.plan, activityType: "PLAN", patch: [{ op: "replace", path: "/steps/0/done", value: true }] };

  yield* textMessage(ids.answer, ANSWER);
  yield { type: EventType.ACTIVITY_DELTA, messageId: ids.plan, activityType: "PLAN", patch: [{ op: "replace", path: "/steps/1/done", value: true }] };
  yield { type: EventType.STATE_DELTA, delta: [{ op: "replace", path: "/steps", value: 2 }] };
  yield { type: EventType.CUSTOM, name: "forecast_ready", value: { days: FORECAST.length } };
  yield { type: EventType.STEP_FINISHED, stepName: "answer" };
  yield { type: EventType.RUN_FINISHED, threadId, runId, timestamp: Date.now(), result: RESULT };
}
