/**
 * A 1 MiB request body of half a million invalid messages gets a 422 naming the first problems and
 * how many more there were, over real HTTP, from a server whose heap is 64 MB.
 *
 * Before validation was bounded, such a body added 450–800 MB of heap to the server and blocked
 * its event loop for seconds; the server below would die of it. It runs in a child process with
 * `--max-old-space-size=64` (about 25 MB are used), and must answer a valid request afterwards.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ChildProcess } from "node:child_process";
import { firstLine, startChild } from "../fixtures/child.js";
import { hostileBody } from "../fixtures/hostile.js";

const MIB = 1024 * 1024;

describe("a 1 MiB body of invalid messages", () => {
  let child: ChildProcess;
  let url: string;

  beforeAll(async () => {
    child = startChild("serve", ["--max-old-space-size=64"]);
    url = (await firstLine(child)).url as string;
  });

  afterAll(() => {
    child.kill();
  });

  const post = (body: string) =>
    fetch(url, { method: "POST", headers: { "content-type": "application/json", accept: "text/event-stream" }, body });

  it("gets a 422 naming the first ten problems and the count of the rest, and the server lives on", async () => {
    const { body, messages } = hostileBody(MIB);
    expect(body.length).toBeLessThanOrEqual(MIB);
    expect(messages).toBeGreaterThan(520_000);

    for (let round = 0; round < 3; round++) {
      const response = await post(body);
      expect(response.status).toBe(422);
      const { error } = (await response.json()) as { error: string };
      const clauses = error.replace(/^invalid RunAgentInput: /, "").split("; ");
      expect(clauses).toHaveLength(11);
      clauses.slice(0, 10).forEach((clause, i) => expect(clause).toBe(`messages[${i}]: expected object, found 0`));
      expect(clauses[10]).toBe(`and ${(messages - 10).toLocaleString("en-US")} more problems`);
    }

    const ok = await post(
      JSON.stringify({ threadId: "t", runId: "r", state: null, messages: [], tools: [], context: [], forwardedProps: null }),
    );
    expect(ok.status).toBe(200);
    expect(await ok.text()).toContain("RUN_FINISHED");
  }, 60_000);
});
