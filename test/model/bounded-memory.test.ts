/**
 * A 9 MB binary frame and a 9 MB SSE event of millions of invalid entries are rejected with the
 * typed error in a child process whose heap is small: memory stays in proportion to the input.
 *
 * Before this bound, the frame (4.5 million empty messages) ran Node out of heap even at 6 GB: each
 * message was built, then each got its zod issues. The SSE event (3 million `{}`) took 45 s and
 * 6.3 GB of RSS, and ran out of heap at 512 MB. The limits below
 * leave the decoders a wide margin: the frame decodes in under 25 MB of heap, and the SSE event's
 * cost is the 160 MB that JSON.parse itself builds for 3 million objects (what any JSON client
 * pays), plus little.
 */
import { describe, expect, it } from "vitest";
import { runChild } from "../fixtures/child.js";

describe("rejecting millions of invalid entries stays within a small heap", () => {
  it("a 9 MB binary frame of 4.5 million empty messages, with a 64 MB heap (OOM at 6 GB before)", async () => {
    const result = await runChild("binary-frame", ["--max-old-space-size=64"]);
    expect(result).toMatchObject({ name: "ValidationError", code: "invalid_event" });
    expect(result.message).toMatch(/^frame #0: invalid MESSAGES_SNAPSHOT event: messages\[0\]\.role: expected /);
    expect(result.message).toMatch(/messages\[9\]\.role: [^;]*; and 4,499,990 more problems$/);
  }, 60_000);

  it("a 9 MB SSE event of 3 million empty messages, with a 512 MB heap (OOM at 512 MB before)", async () => {
    const result = await runChild("sse-event", ["--max-old-space-size=512"]);
    expect(result).toMatchObject({ name: "ValidationError", code: "invalid_event" });
    expect(result.message).toMatch(/^SSE event #0: invalid MESSAGES_SNAPSHOT event: messages\[0\]\.role: expected /);
    expect(result.message).toMatch(/; and 2,999,990 more problems$/);
  }, 60_000);
});
