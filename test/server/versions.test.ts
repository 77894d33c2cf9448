/**
 * A client's protocol version, as our server meets it over real HTTP (AG-UI 1.1, basic/versioning):
 * a newer one, or one that cannot be read, is served all the same, and `onWarning` hears of it.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import type { RunAgentInput } from "../../src/index.js";
import type { ProtocolWarning } from "../../src/protocol/index.js";
import { HANDLERS, post, readEvents, runInput, SSE, type Served } from "./helpers.js";

const open: Served[] = [];
afterEach(async () => {
  vi.restoreAllMocks();
  await Promise.all(open.splice(0).map((s) => s.close()));
});

async function* quick(input: RunAgentInput) {
  yield { type: "RUN_STARTED", threadId: input.threadId, runId: input.runId } as const;
  yield { type: "RUN_FINISHED", threadId: input.threadId, runId: input.runId } as const;
}

describe.each(HANDLERS)("$name, a client's protocol version", ({ serve }) => {
  it.each([
    ["1.2", "newer_version", "1.2"],
    ["2.0", "newer_version", "2.0"],
    ["draft", "uninterpretable_version", "cannot interpret"],
  ])("%s is served, with a warning", async (version, kind, words) => {
    const warnings: ProtocolWarning[] = [];
    const server = await serve(quick, { onWarning: (w) => void warnings.push(w) });
    open.push(server);
    const events = await readEvents(await post(server.url, runInput({ protocolVersion: version }), SSE));
    expect(events.map((e) => e.type)).toEqual(["RUN_STARTED", "RUN_FINISHED"]);
    expect(warnings).toEqual([expect.objectContaining({ kind })]);
    expect(warnings[0]!.message).toContain(words);
  });

  it.each(["1.1", "1.0", undefined])("%s is quiet", async (version) => {
    const warnings: ProtocolWarning[] = [];
    const server = await serve(quick, { onWarning: (w) => void warnings.push(w) });
    open.push(server);
    await readEvents(await post(server.url, runInput(version === undefined ? {} : { protocolVersion: version }), SSE));
    expect(warnings).toEqual([]);
  });

  it("warns through console.warn by default, once for the handler's life", async () => {
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
    const server = await serve(quick);
    open.push(server);
    for (let i = 0; i < 3; i++) await readEvents(await post(server.url, runInput({ protocolVersion: "1.9" }), SSE));
    expect(warn).toHaveBeenCalledTimes(1);
    expect(String(warn.mock.calls[0]![0])).toMatch(/^\[agui-wire\] a client speaks protocol 1\.9/);
  });

  it("strips what a newer client sends that it does not know, tells onWarning, and refuses what is malformed", async () => {
    const warnings: ProtocolWarning[] = [];
    const seen: RunAgentInput[] = [];
    const server = await serve(
      async function* (input: RunAgentInput) {
        seen.push(input);
        yield* quick(input);
      },
      { onWarning: (w) => void warnings.push(w) },
    );
    open.push(server);
    const body = {
      ...runInput({ protocolVersion: "1.1" }),
      priority: "high",
      messages: [{ id: "u", role: "user", content: [{ type: "hologram", beam: 3 }, { type: "text", text: "hi" }] }],
    };
    const events = await readEvents(await post(server.url, body, SSE));
    expect(events.map((e) => e.type)).toEqual(["RUN_STARTED", "RUN_FINISHED"]);
    expect(seen[0]!.messages).toEqual([{ id: "u", role: "user", content: [{ type: "text", text: "hi" }] }]);
    expect("priority" in seen[0]!).toBe(false);
    expect(warnings.map(({ kind, path }) => ({ kind, path }))).toEqual([
      { kind: "unknown_member", path: "/messages/0/content/0" },
      { kind: "unknown_property", path: "/priority" },
    ]);

    const malformed = await post(server.url, { ...body, messages: [{ id: 7, role: "user", content: "hi" }] }, SSE);
    expect(malformed.status).toBe(422);
  });
});
