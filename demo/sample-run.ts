/**
 * A scripted agent run used by the library's tests (the demo runs the longer
 * `conversation-run.ts`): no model and no key, just the events a real agent would stream for a
 * short answer with a tool call.
 */
import { EventType, type AguiEventInput, type RunAgentInput } from "../src/index.js";

/** The events of one scripted run for `input`, in order. */
export function* sampleRun(input: Pick<RunAgentInput, "threadId" | "runId">): Generator<AguiEventInput> {
  const { threadId, runId } = input;
  const now = () => Date.now();
  yield { type: EventType.RUN_STARTED, threadId, runId, timestamp: now() };
  yield { type: EventType.STEP_STARTED, stepName: "answer" };
  yield { type: EventType.STATE_SNAPSHOT, snapshot: { city: null, forecast: [], units: "metric", steps: 0 } };

  const messageId = `${runId}-msg-1`;
  yield { type: EventType.TEXT_MESSAGE_START, messageId, role: "assistant" };
  const text = "Let me look up the weather in Lisbon for you. One moment while I call the forecast tool.";
  for (const word of text.split(/(?<= )/)) yield { type: EventType.TEXT_MESSAGE_CONTENT, messageId, delta: word };
  yield { type: EventType.TEXT_MESSAGE_END, messageId };

  const toolCallId = `${runId}-call-1`;
  const args = JSON.stringify({ city: "Lisbon", days: 3, units: "metric" });
  yield { type: EventType.TOOL_CALL_START, toolCallId, toolCallName: "get_forecast", parentMessageId: messageId };
  for (let i = 0; i < args.length; i += 8) yield { type: EventType.TOOL_CALL_ARGS, toolCallId, delta: args.slice(i, i + 8) };
  yield { type: EventType.TOOL_CALL_END, toolCallId };

  const forecast = [
    { day: "Mon", high: 21.5, low: 14, sky: "sunny" },
    { day: "Tue", high: 19, low: 13.5, sky: "cloudy" },
    { day: "Wed", high: 22, low: 15, sky: "sunny" },
  ];
  yield {
    type: EventType.STATE_DELTA,
    delta: [
      { op: "replace", path: "/city", value: "Lisbon" },
      { op: "add", path: "/forecast", value: forecast },
      { op: "replace", path: "/steps", value: 1 },
    ],
  };
  yield {
    type: EventType.MESSAGES_SNAPSHOT,
    messages: [
      { id: "user-1", role: "user", content: "What's the weather in Lisbon?" },
      {
        id: messageId,
        role: "assistant",
        content: text,
        toolCalls: [{ id: toolCallId, type: "function", function: { name: "get_forecast", arguments: args } }],
      },
      { id: `${runId}-tool-1`, role: "tool", toolCallId, content: JSON.stringify(forecast) },
    ],
  };
  yield { type: EventType.CUSTOM, name: "forecast_ready", value: { days: forecast.length } };
  yield { type: EventType.STEP_FINISHED, stepName: "answer" };
  yield { type: EventType.RUN_FINISHED, threadId, runId, timestamp: now() };
}
