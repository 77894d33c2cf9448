// The proxy between real clients and real upstreams, over HTTP on loopback: `@ag-ui/client` 1.0's
// HttpAgent and ours, in both transports, through our proxy (its Node and its fetch-style handler),
// to an `@ag-ui/encoder` upstream answering SSE, one answering binary, our own server (which the
// proxy asks for binary) and an agent in the proxy's process. Every event must arrive intact:
// what our client gets through the proxy is what the upstream sent, validated; what their client
// gets through the proxy is what it gets straight from the upstream.
import { serve, type ServerType } from "@hono/node-server";
import { EventEncoder } from "@ag-ui/encoder";
import { HttpAgent as TheirHttpAgent, type BaseEvent, type RunAgentInput as TheirRunAgentInput } from "@ag-ui/client";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HttpAgent, type Transport } from "../../src/client/index.js";
import { BINARY_MEDIA_TYPE, type AguiEvent, type AguiEventInput, type RunAgentInput } from "../../src/index.js";
import { createNodeHandler } from "../../src/server/index.js";
import { createNodeProxyHandler, createProxyHandler, type ProxyRunRecord } from "../../src/proxy/index.js";
import { listen, normalized, withBody, type TestServer } from "../client/helpers.js";
import { run10Trace } from "../fixtures/trace-1.0.js";

const TOKEN = "t-transcode-token";
const TRACE = run10Trace(400);
const RUN = TRACE.find((e) => e.type === "RUN_STARTED") as { threadId: string; runId: string };

/** An upstream written with @ag-ui/encoder: always SSE, or in the transport the Accept header asks for. */
function encoderUpstream(mode: "sse" | "accept"): Promise<TestServer> {
  return listen(
    withBody((req, res) => {
      const encoder = new EventEncoder(mode === "accept" ? { accept: req.headers.accept } : {});
      res.writeHead(200, { "content-type": encoder.getContentType(), "cache-control": "no-cache" });
      for (const event of TRACE) res.write(encoder.encodeBinary(event as BaseEvent));
      res.end();
    }),
  );
}

/** Their client asking for binary: overriding requestInit is the only way. */
class TheirBinaryHttpAgent extends TheirHttpAgent {
  protected override requestInit(input: TheirRunAgentInput): RequestInit {
    const init = super.requestInit(input);
    return { ...init, headers: { ...(init.headers as Record<string, string>), Accept: BINARY_MEDIA_TYPE } };
  }
}

/** The events their client's subscribers see for one run against `url`. */
async function theirEvents(url: string, transport: "sse" | "binary", token?: string): Promise<unknown[]> {
  const Client = transport === "binary" ? TheirBinaryHttpAgent : TheirHttpAgent;
  const agent = new Client({ url, threadId: RUN.threadId, headers: token ? { authorization: `Bearer ${token}` } : {} });
  const events: unknown[] = [];
  await agent.runAgent({ runId: RUN.runId }, { onEvent: ({ event }) => void events.push(event) });
  return events;
}

/** The events our client yields for one run against `url`. */
async function ourEvents(url: string, transport: Transport, token = TOKEN): Promise<AguiEvent[]> {
  const agent = new HttpAgent({ url, transport, threadId: RUN.threadId, headers: { authorization: `Bearer ${token}` } });
  const events: AguiEvent[] = [];
  for await (const event of agent.events({ runId: RUN.runId })) events.push(event);
  return events;
}

const upstreams: Record<string, TestServer> = {};
const records: ProxyRunRecord[] = [];
let nodeProxy: TestServer;
let fetchProxy: ServerType;
let fetchProxyOrigin: string;

beforeAll(async () => {
  upstreams.encoderSse = await encoderUpstream("sse");
  upstreams.encoderBinary = await encoderUpstream("accept");
  upstreams.ours = await listen(createNodeHandler(function* () {
    yield* TRACE;
  }));
  const config = {
    agents: {
      "encoder-sse": { url: upstreams.encoderSse.url, description: "@ag-ui/encoder, SSE" },
      "encoder-binary": { url: upstreams.encoderBinary.url, description: "@ag-ui/encoder, as asked" },
      ours: { url: upstreams.ours.url, description: "agui-wire server" },
    },
    auth: { tokens: [{ token: TOKEN, subject: "tester" }] },
  };
  const options = {
    agents: { local: (_input: RunAgentInput): Iterable<AguiEventInput> => TRACE },
    logger: (record: ProxyRunRecord) => void records.push(record),
  };
  nodeProxy = await listen(createNodeProxyHandler(config, options));
  const fetchHandler = createProxyHandler(config, options);
  fetchProxy = serve({ fetch: fetchHandler, port: 0, hostname: "127.0.0.1" });
  await new Promise<void>((resolve) => fetchProxy.once("listening", () => resolve()));
  fetchProxyOrigin = `http://127.0.0.1:${(fetchProxy.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await Promise.all(Object.values(upstreams).map((s) => s.close()));
  await nodeProxy?.close();
  await new Promise<void>((resolve) => fetchProxy?.close(() => resolve()));
});

const UPSTREAMS = [
  { name: "encoder-sse", transportIn: "sse" },
  { name: "encoder-binary", transportIn: "binary" },
  { name: "ours", transportIn: "binary" },
  { name: "local", transportIn: "local" },
] as const;

describe.each([
  { handler: "Node", origin: () => nodeProxy.origin },
  { handler: "fetch-style", origin: () => fetchProxyOrigin },
])("the proxy's $handler handler", ({ origin }) => {
  describe.each(UPSTREAMS)("in front of $name (events arrive $transportIn)", ({ name, transportIn }) => {
    for (const transport of ["binary", "sse"] as const) {
      it(`gives our HttpAgent (${transport}) every event the upstream sent, and logs the run`, async () => {
        const before = records.length;
        expect(await ourEvents(`${origin()}/agents/${name}`, transport)).toStrictEqual(normalized(TRACE));
        await expect.poll(() => records.length).toBe(before + 1);
        expect(records.at(-1)).toMatchObject({
          agent: name,
          principal: "tester",
          transportIn,
          transportOut: transport,
          status: 200,
          events: TRACE.length,
          outcome: "finished",
        });
        expect(records.at(-1)!.bytes).toBeGreaterThan(TRACE.length);
      });

      it(`gives @ag-ui/client's HttpAgent (${transport}) what it gets straight from @ag-ui/encoder`, async () => {
        // Straight from an encoder answering in the transport asked for: their binary decoding
        // differs from their SSE decoding (it adds an empty `resume` to RUN_STARTED's input).
        const direct = await theirEvents(upstreams.encoderBinary!.url, transport);
        expect(direct.length).toBeGreaterThanOrEqual(TRACE.length);
        expect(await theirEvents(`${origin()}/agents/${name}`, transport, TOKEN)).toStrictEqual(direct);
      });
    }
  });
});

describe("under load", () => {
  it("relays 100 concurrent runs intact, half binary and half SSE, from mixed upstreams", async () => {
    const names = ["encoder-sse", "ours", "encoder-binary", "local"];
    const runs = Array.from({ length: 100 }, (_, i) => ourEvents(`${nodeProxy.origin}/agents/${names[i % names.length]}`, i % 2 ? "sse" : "binary"));
    const expected = normalized(TRACE);
    for (const events of await Promise.all(runs)) expect(events).toStrictEqual(expected);
  });
});
