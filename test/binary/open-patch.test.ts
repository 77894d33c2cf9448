/**
 * JSON Patch operations are open objects (RFC 6902 §4, AG-UI 1.1 basic/processing): a member that
 * another operation defines, such as a `remove`'s leftover `value`, arrives whole on both
 * transports, and applying the patch ignores it.
 */
import { describe, expect, it } from "vitest";
import { decodeEvent, encodeEvent, encodeSSE, parseEvent, SSEDecoder, type AguiEventInput } from "../../src/index.js";
import { RunState } from "../../src/client/reducer/index.js";

const delta: AguiEventInput = {
  type: "STATE_DELTA",
  delta: [
    { op: "remove", path: "/gone", value: "was here" },
    { op: "add", path: "/added", value: 1, from: "/unused" },
    { op: "move", from: "/moved", path: "/there", value: null },
  ] as never,
};

describe("open JSON Patch operations", () => {
  it("arrive whole through binary frames and SSE", () => {
    const expected = parseEvent(delta);
    expect((expected as { delta: unknown[] }).delta).toEqual((delta as { delta: unknown[] }).delta);
    expect(decodeEvent(encodeEvent(delta))).toEqual(expected);
    const [viaSSE] = new SSEDecoder().push(new TextEncoder().encode(encodeSSE(delta)));
    expect(viaSSE).toEqual(expected);
  });

  it("apply as RFC 6902 says: the extra members ignored", () => {
    const run = new RunState({ messages: [], state: { gone: true, moved: 2 } });
    run.apply(parseEvent(delta));
    expect(run.state).toEqual({ added: 1, there: 2 });
  });
});
