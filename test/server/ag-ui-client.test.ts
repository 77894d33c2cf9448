/**
 * The reference client, `@ag-ui/client` 1.0's HttpAgent, against our server, over both
 * transports: it must receive every event, as sent.
 */
import { HttpAgent, type BaseEvent, type RunAgentInput as TheirRunAgentInput } from "@ag-ui/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EventType, parseEvent, type AguiEventInput, type RunAgentInput } from "../../src/index.js";
import { sampleRun } from "../../demo/sample-run.js";
import { asServed, BINARY, HANDLERS, SSE, runInput, type Served } from "./helpers.js";

/** The demo's scripted run, with a RAW event added so that every event type the run uses is covered. */
function* fullRun(input: RunAgentInput): Generator<AguiEventInput> {
  const events = [...sampleRun(input)];
  yield* events.slice(0, -1);
  yield { type: EventType.RAW, event: { provider: "test", n: [1, 2.5, null] }, source: "test" };
  yield events.at(-1)!;
}

/** HttpAgent that asks for the binary transport, as a user of the reference client would. */
class BinaryHttpAgent extends HttpAgent {
  protected override requestInit(input: TheirRunAgentInput): RequestInit {
    const init = super.requestInit(input);
    return { ...init, headers: { ...(init.headers as Record<string, string>), Accept: BINARY } };
  }
}

/** Every event `agent.run(input)` emits, once it completes. */
function runToEnd(agent: HttpAgent, input: RunAgentInput): Promise<BaseEvent[]> {
  return new Promise((resolve, reject) => {
    const events: BaseEvent[] = [];
    agent.run(input as TheirRunAgentInput).subscribe({
      next: (event) => events.push(event),
      error: reject,
      complete: () => resolve(events),
    });
  });
}

/** The Content-Type of every response the agents below got, to check which transport ran. */
const contentTypes: (string | null)[] = [];
const recordingFetch = async (url: string, init: RequestInit): Promise<Response> => {
  const response = await fetch(url, init);
  contentTypes.push(response.headers.get("content-type"));
  return response;
};

const TRANSPORTS = [
  { transport: "SSE", contentType: SSE, make: (url: string) => new HttpAgent({ url, fetch: recordingFetch }) },
  { transport: "binary", contentType: BINARY, make: (url: string) => new BinaryHttpAgent({ url, fetch: recordingFetch }) },
] as const;

describe.each(HANDLERS)("@ag-ui/client HttpAgent against $name", ({ serve }) => {
  let served: Served;
  /** What the agent yielded, by run id: the events carry timestamps, so they are recorded. */
  const sent = new Map<string, AguiEventInput[]>();
  beforeAll(async () => {
    served = await serve((input) => {
      const events = [...fullRun(input)];
      sent.set(input.runId, events);
      return events;
    });
  });
  afterAll(() => served.close());

  describe.each(TRANSPORTS)("over $transport", ({ make, contentType }) => {
    it("receives every event of the run, as sent", async () => {
      const input = runInput({ threadId: "t-client", runId: "r-client" });
      contentTypes.length = 0;
      const received = await runToEnd(make(served.url), input);
      expect(contentTypes).toEqual([contentType]);
      // As sent: the RUN_STARTED declares the server's protocol version, the agent having declared none.
      const expected = sent.get("r-client")!.map((e) => parseEvent(asServed(e)));
      expect(received.map((e) => parseEvent(e))).toEqual(expected);
    });

    it("runAgent applies the run to the agent's messages and state", async () => {
      const agent = make(served.url);
      agent.threadId = "t-apply";
      const result = await agent.runAgent({ runId: "r-apply" });
      expect(agent.state).toMatchObject({ city: "Lisbon", steps: 1, units: "metric" });
      expect(agent.messages.map((m) => m.role).sort()).toEqual(["assistant", "tool", "user"]);
      const assistant = agent.messages.find((m) => m.role === "assistant");
      expect(assistant?.content).toMatch(/^Let me look up the weather in Lisbon/);
      expect(result.newMessages.length).toBeGreaterThan(0);
    });
  });
});
