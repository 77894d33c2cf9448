/**
 * A run that fails before it starts, over real HTTP: our server answers an agent that throws
 * before its first event (or returns something that is not iterable) with a lone RUN_ERROR, and
 * our client delivers that RUN_ERROR as the run's proper end, never a protocol violation.
 */
import { afterEach, describe, expect, it } from "vitest";
import { HttpAgent } from "../../src/client/index.js";
import type { Agent, AgentRunResult } from "../../src/index.js";
import { HANDLERS, type Served } from "../server/helpers.js";
import { collect, iterate } from "./helpers.js";

const servers: Served[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

const FAILING_AGENTS: { name: string; agent: Agent }[] = [
  {
    name: "throws before its first event",
    agent: async function* () {
      throw new Error("the model is down");
    },
  },
  {
    name: "returns something that is not iterable",
    agent: { run: () => 42 as unknown as AgentRunResult },
  },
];

describe("a lone RUN_ERROR from our server reaches HttpAgent as the agent's failure", () => {
  for (const { name: handler, serve } of HANDLERS) {
    for (const { name, agent } of FAILING_AGENTS) {
      for (const transport of ["binary", "sse"] as const) {
        it(`an agent that ${name} (${handler}, ${transport})`, async () => {
          const reported: unknown[] = [];
          const server = await serve(agent, { onError: (error) => reported.push(error) });
          servers.push(server);
          const expected = [{ type: "RUN_ERROR", code: "agent_error", message: "the agent failed" }];

          const viaSubscribe = await collect(new HttpAgent({ url: server.url, transport }).events());
          expect(viaSubscribe.error).toBeUndefined();
          expect(viaSubscribe.completed).toBe(true);
          expect(viaSubscribe.events).toEqual(expected);

          const viaLoop = await iterate(new HttpAgent({ url: server.url, transport }).events());
          expect(viaLoop.error).toBeUndefined();
          expect(viaLoop.completed).toBe(true);
          expect(viaLoop.events).toEqual(expected);

          // The real error went to the server's onError, once per run.
          expect(reported).toHaveLength(2);
        });
      }
    }
  }
});
