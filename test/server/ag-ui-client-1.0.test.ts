/**
 * A whole AG-UI 1.0 conversation, run by the reference client (`@ag-ui/client` 1.0's HttpAgent)
 * against our server and against a server built on the reference encoder (`@ag-ui/encoder` 1.0),
 * over both transports: reasoning, a text message, a tool call and its result, activity, state,
 * a subagent's attributed work, a run that ends on an interrupt, and a second run that answers it
 * with `resume`. The client must end in the same place against either server: the same messages,
 * state, run results and pending interrupts.
 */
import { HttpAgent, type BaseEvent, type Message, type RunAgentInput as TheirRunAgentInput, type State } from "@ag-ui/client";
import { EventEncoder } from "@ag-ui/encoder";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EventType, type AguiEventInput, type RunAgentInput } from "../../src/index.js";
import { defineAgent } from "../../src/server/index.js";
import { BINARY, HANDLERS, SSE, listen, type Served } from "./helpers.js";

/** What the scenario's first run asks the user, and how the second run learns the answer. */
const INTERRUPT = {
  id: "approve-delete",
  reason: "tool_approval",
  message: "Delete report.pdf?",
  toolCallId: "call-lookup",
  responseSchema: { type: "object", properties: { approved: { type: "boolean" } } },
  expiresAt: "2999-01-01T00:00:00Z",
  metadata: { severity: "high" },
  subagentRunId: "sub-files",
};
const RESUME = [{ interruptId: INTERRUPT.id, status: "resolved" as const, payload: { approved: true }, metadata: { by: "ana" } }];

/**
 * The agent's events for a run: the first run of the scenario when the request has no `resume`,
 * the second (which echoes the resume payload it got) when it has. The same function feeds both
 * servers.
 */
function scenario(input: Pick<RunAgentInput, "threadId" | "runId" | "resume">): AguiEventInput[] {
  const { threadId, runId } = input;
  if (input.resume === undefined) {
    return [
      { type: EventType.RUN_STARTED, threadId, runId, timestamp: 1_732_200_000_000 },
      { type: EventType.STATE_SNAPSHOT, snapshot: { city: "Lisbon", steps: 0, files: ["report.pdf", "notes.txt"] } },
      { type: EventType.REASONING_START, messageId: "think-1" },
      { type: EventType.REASONING_MESSAGE_START, messageId: "think-1-m", role: "reasoning" },
      { type: EventType.REASONING_MESSAGE_CONTENT, messageId: "think-1-m", delta: "The user wants the old report gone; " },
      { type: EventType.REASONING_MESSAGE_CONTENT, messageId: "think-1-m", delta: "deleting needs approval." },
      { type: EventType.REASONING_MESSAGE_END, messageId: "think-1-m", metadata: { model: "r-1" } },
      { type: EventType.REASONING_END, messageId: "think-1" },
      { type: EventType.REASONING_ENCRYPTED_VALUE, subtype: "message", entityId: "think-1-m", encryptedValue: "gAAAAB-sealed-thoughts" },
      { type: EventType.TEXT_MESSAGE_START, messageId: "say-1", role: "assistant", name: "files-bot" },
      { type: EventType.TEXT_MESSAGE_CONTENT, messageId: "say-1", delta: "Let me find " },
      { type: EventType.TEXT_MESSAGE_CONTENT, messageId: "say-1", delta: "the report." },
      { type: EventType.TEXT_MESSAGE_END, messageId: "say-1" },
      { type: EventType.TOOL_CALL_START, toolCallId: "call-lookup", toolCallName: "find_file", parentMessageId: "say-1" },
      { type: EventType.TOOL_CALL_ARGS, toolCallId: "call-lookup", delta: '{"name":' },
      { type: EventType.TOOL_CALL_ARGS, toolCallId: "call-lookup", delta: '"report.pdf"}' },
      { type: EventType.TOOL_CALL_END, toolCallId: "call-lookup", metadata: { latencyMs: 12 } },
      { type: EventType.REASONING_ENCRYPTED_VALUE, subtype: "tool-call", entityId: "call-lookup", encryptedValue: "gAAAAB-sealed-call" },
      {
        type: EventType.TOOL_CALL_RESULT,
        messageId: "result-1",
        toolCallId: "call-lookup",
        content: [
          { type: "text", text: "found 1 file" },
          { type: "document", source: { type: "url", value: "https://files.example.com/report.pdf", mimeType: "application/pdf" } },
        ],
        role: "tool",
      },
      { type: EventType.ACTIVITY_SNAPSHOT, messageId: "plan-1", activityType: "PLAN", content: { steps: [{ title: "find", done: true }, { title: "delete", done: false }] } },
      { type: EventType.ACTIVITY_DELTA, messageId: "plan-1", activityType: "PLAN", patch: [{ op: "add", path: "/steps/-", value: { title: "confirm", done: false } }] },
      { type: EventType.STATE_DELTA, delta: [{ op: "replace", path: "/steps", value: 1 }, { op: "add", path: "/found", value: "report.pdf" }] },
      { type: EventType.SUBAGENT_STARTED, subagentRunId: "sub-files", name: "file-manager", description: "Deletes files", parentToolCallId: "call-lookup", parentMessageId: "say-1" },
      { type: EventType.STEP_STARTED, stepName: "prepare", subagentRunId: "sub-files" },
      { type: EventType.TEXT_MESSAGE_START, messageId: "sub-say-1", role: "assistant", subagentRunId: "sub-files" },
      { type: EventType.TEXT_MESSAGE_CONTENT, messageId: "sub-say-1", delta: "I need approval to delete.", subagentRunId: "sub-files" },
      { type: EventType.TEXT_MESSAGE_END, messageId: "sub-say-1", subagentRunId: "sub-files" },
      { type: EventType.ACTIVITY_SNAPSHOT, messageId: "sub-progress", activityType: "PROGRESS", content: { percent: 50 }, subagentRunId: "sub-files" },
      { type: EventType.STEP_FINISHED, stepName: "prepare", subagentRunId: "sub-files" },
      { type: EventType.SUBAGENT_FINISHED, subagentRunId: "sub-files", outcome: { type: "suspended", interruptIds: [INTERRUPT.id] } },
      { type: EventType.RUN_FINISHED, threadId, runId, outcome: { type: "interrupt", interrupts: [INTERRUPT] } },
    ];
  }
  const answer = input.resume.find((entry) => entry.interruptId === INTERRUPT.id);
  return [
    { type: EventType.RUN_STARTED, threadId, runId },
    { type: EventType.ACTIVITY_DELTA, messageId: "plan-1", activityType: "PLAN", patch: [{ op: "replace", path: "/steps/1/done", value: true }] },
    { type: EventType.TEXT_MESSAGE_START, messageId: "say-2" },
    { type: EventType.TEXT_MESSAGE_CONTENT, messageId: "say-2", delta: `Answer: ${JSON.stringify(answer?.payload)} (${answer?.status}). Deleted.` },
    { type: EventType.TEXT_MESSAGE_END, messageId: "say-2" },
    { type: EventType.STATE_DELTA, delta: [{ op: "remove", path: "/files/0" }, { op: "add", path: "/approvedBy", value: answer?.metadata?.by ?? null }] },
    { type: EventType.RUN_FINISHED, threadId, runId, result: { deleted: ["report.pdf"] }, outcome: { type: "success" } },
  ];
}

/** What our agent was given, run by run. */
const given: RunAgentInput[] = [];
/** Our server's agent: the scenario. */
const agent = defineAgent((input) => {
  given.push(input);
  return scenario(input);
});

/**
 * A server on the reference encoder, as its README has one written: node:http, the request's
 * Accept header given to `EventEncoder`, each event of the scenario written with `encodeBinary`
 * (protobuf frames when binary was asked for, else the SSE text as bytes).
 */
function encoderServer(): Promise<Served> {
  return listen((req, res) => {
    const parts: Buffer[] = [];
    req.on("data", (chunk: Buffer) => parts.push(chunk));
    req.on("end", () => {
      const input = JSON.parse(Buffer.concat(parts).toString("utf8")) as TheirRunAgentInput;
      const encoder = new EventEncoder({ accept: req.headers.accept });
      res.writeHead(200, { "Content-Type": encoder.getContentType() });
      for (const event of scenario(input as RunAgentInput)) res.write(encoder.encodeBinary(event as BaseEvent));
      res.end();
    });
  });
}

/** HttpAgent asking for the binary transport: a subclass overriding requestInit is the only way. */
class BinaryHttpAgent extends HttpAgent {
  protected override requestInit(input: TheirRunAgentInput): RequestInit {
    const init = super.requestInit(input);
    return { ...init, headers: { ...(init.headers as Record<string, string>), Accept: BINARY } };
  }
}

const TRANSPORTS = [
  { transport: "SSE", contentType: SSE, Client: HttpAgent },
  { transport: "binary", contentType: BINARY, Client: BinaryHttpAgent },
] as const;

/** Where the client stands after each step of the scenario. */
interface Outcome {
  contentTypes: (string | null)[];
  /** The request bodies the client POSTed, parsed. */
  posted: unknown[];
  first: { result: unknown; newMessages: Message[] };
  afterFirst: { messages: Message[]; state: State; pendingInterrupts: unknown[] };
  refused: string;
  second: { result: unknown; newMessages: Message[] };
  afterSecond: { messages: Message[]; state: State; pendingInterrupts: unknown[] };
}

/**
 * Runs the scenario with a fresh client of class `Client` against `url`: the first run, a run
 * without `resume` (which the client must refuse, the interrupt being open), and the second run.
 */
async function converse(Client: typeof HttpAgent, url: string): Promise<Outcome> {
  const contentTypes: (string | null)[] = [];
  const posted: unknown[] = [];
  const client = new Client({
    url,
    threadId: "thread-1.0",
    initialMessages: [{ id: "user-1", role: "user", content: [{ type: "text", text: "Delete the old report" }] }],
    initialState: { city: "Lisbon" },
    fetch: async (input, init) => {
      posted.push(JSON.parse(init.body as string));
      const response = await fetch(input, init);
      contentTypes.push(response.headers.get("content-type"));
      return response;
    },
  });
  const snapshot = () => ({ messages: structuredClone(client.messages), state: structuredClone(client.state), pendingInterrupts: structuredClone(client.pendingInterrupts) });

  const first = await client.runAgent({ runId: "run-1", tools: [{ name: "find_file", description: "Finds a file", parameters: { type: "object" } }] });
  const afterFirst = snapshot();
  const refused = await client.runAgent({ runId: "run-refused" }).then(
    () => "not refused",
    (error: Error) => error.message,
  );
  const second = await client.runAgent({ runId: "run-2", resume: RESUME });
  return { contentTypes, posted, first, afterFirst, refused, second, afterSecond: snapshot() };
}

/** The reference outcome, by transport: the client against the `@ag-ui/encoder` server. */
const reference = new Map<string, Outcome>();
let encoder: Served;
beforeAll(async () => {
  encoder = await encoderServer();
  for (const { transport, Client } of TRANSPORTS) reference.set(transport, await converse(Client, encoder.url));
});
afterAll(() => encoder.close());

describe.each(TRANSPORTS)("the reference client and the @ag-ui/encoder server over $transport", ({ transport, contentType }) => {
  // Checks the reference itself, so that agreeing with it means something: every part of the
  // scenario reached the client's messages and state.
  it("ends with the scenario's messages, state and results", () => {
    const outcome = reference.get(transport)!;
    expect(outcome.contentTypes).toEqual([contentType, contentType]);
    expect(outcome.first.result).toBeUndefined();
    expect(outcome.afterFirst.pendingInterrupts).toEqual([INTERRUPT]);
    expect(outcome.refused).toMatch(/pending interrupt.*approve-delete/);
    // The refused run sent nothing; the answer carries the resume entries and the conversation so
    // far (activity messages stay on the client, as 1.0's HttpAgent has it).
    expect(outcome.posted).toHaveLength(2);
    expect(outcome.posted[0]).toMatchObject({ protocolVersion: "1.0", runId: "run-1" });
    expect(outcome.posted[0]).not.toHaveProperty("resume");
    expect(outcome.posted[1]).toMatchObject({ protocolVersion: "1.0", runId: "run-2", resume: RESUME });
    expect((outcome.posted[1] as { messages: Message[] }).messages.map((m) => `${m.id}:${m.role}`)).toEqual([
      "user-1:user",
      "think-1-m:reasoning",
      "say-1:assistant",
      "result-1:tool",
      "sub-say-1:assistant",
    ]);
    expect(outcome.second.result).toEqual({ deleted: ["report.pdf"] });
    expect(outcome.afterSecond.pendingInterrupts).toEqual([]);
    expect(outcome.afterSecond.state).toEqual({ city: "Lisbon", steps: 1, files: ["notes.txt"], found: "report.pdf", approvedBy: "ana" });
    const byId = new Map(outcome.afterSecond.messages.map((m) => [m.id, m]));
    expect([...byId.keys()]).toEqual(["user-1", "think-1-m", "say-1", "result-1", "plan-1", "sub-say-1", "sub-progress", "say-2"]);
    expect(byId.get("think-1-m")).toMatchObject({ role: "reasoning", encryptedValue: "gAAAAB-sealed-thoughts", metadata: { model: "r-1" } });
    expect(byId.get("say-1")).toMatchObject({
      role: "assistant",
      name: "files-bot",
      content: "Let me find the report.",
      toolCalls: [{ id: "call-lookup", function: { name: "find_file", arguments: '{"name":"report.pdf"}' }, encryptedValue: "gAAAAB-sealed-call", metadata: { latencyMs: 12 } }],
    });
    expect(byId.get("result-1")).toMatchObject({ role: "tool", toolCallId: "call-lookup", content: [{ type: "text", text: "found 1 file" }, { type: "document" }] });
    expect(byId.get("plan-1")).toMatchObject({ role: "activity", content: { steps: [{ done: true }, { done: true }, { title: "confirm" }] } });
    expect(byId.get("sub-say-1")).toMatchObject({ role: "assistant", subagentRunId: "sub-files", content: "I need approval to delete." });
    expect(byId.get("sub-progress")).toMatchObject({ role: "activity", subagentRunId: "sub-files", content: { percent: 50 } });
    expect(byId.get("say-2")).toMatchObject({ role: "assistant", content: 'Answer: {"approved":true} (resolved). Deleted.' });
  });
});

describe.each(HANDLERS)("the reference client against our $name", ({ serve }) => {
  let served: Served;
  beforeAll(async () => {
    served = await serve(agent);
  });
  afterAll(() => served.close());

  describe.each(TRANSPORTS)("over $transport", ({ transport, Client }) => {
    it("ends with the same messages, state, results and interrupts as against the @ag-ui/encoder server", async () => {
      given.length = 0;
      const ours = await converse(Client, served.url);
      const theirs = reference.get(transport)!;
      expect(ours.contentTypes).toEqual(theirs.contentTypes);
      // The client sent the same requests to both servers, and our agent got them as sent: the
      // second carries what the first run produced (reasoning with its encrypted value, content
      // parts, a subagent's message, tool call metadata) and the resume entries.
      expect(ours.posted).toStrictEqual(theirs.posted);
      expect(given).toStrictEqual(ours.posted);
      expect(ours.first).toStrictEqual(theirs.first);
      expect(ours.afterFirst).toStrictEqual(theirs.afterFirst);
      expect(ours.refused).toBe(theirs.refused);
      expect(ours.second).toStrictEqual(theirs.second);
      expect(ours.afterSecond).toStrictEqual(theirs.afterSecond);
    });
  });
});
