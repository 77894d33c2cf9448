/**
 * Accept header -> response Content-Type -> a body in that transport, end to end.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FrameDecoder, SSEDecoder, parseEvent } from "../../src/index.js";
import { asServed, BINARY, HANDLERS, SSE, post, runInput, shortRun, type Served } from "./helpers.js";

const CASES: [accept: string | undefined, expected: string][] = [
  [undefined, SSE],
  ["", SSE],
  [SSE, SSE],
  [BINARY, BINARY],
  ["APPLICATION/VND.AG-UI.EVENT+PROTO", BINARY],
  [`${BINARY}, ${SSE}`, BINARY],
  [`${SSE}, ${BINARY}`, SSE],
  [`${SSE};q=0.5, ${BINARY}`, BINARY],
  [`${BINARY};q=0.1, ${SSE}`, SSE],
  [`${BINARY};q=0`, SSE],
  ["*/*", SSE],
  ["application/*", BINARY],
  ["application/json", SSE],
  ["text/html, application/xhtml+xml, */*;q=0.8", SSE],
  ["not a media range", SSE],
];

describe.each(HANDLERS)("$name", ({ serve }) => {
  let served: Served;
  beforeAll(async () => {
    served = await serve((input) => shortRun(input));
  });
  afterAll(() => served.close());

  it.each(CASES)("Accept %j -> %s, and the body is in that transport", async (accept, expected) => {
    const input = runInput();
    const response = await post(served.url, input, accept);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe(expected);
    const bytes = new Uint8Array(await response.arrayBuffer());
    // Decode with the expected transport's decoder, not one picked from the response.
    const decoder = expected === BINARY ? new FrameDecoder() : new SSEDecoder();
    const events = decoder.push(bytes);
    decoder.end();
    // The agent's run as sent: its RUN_STARTED declares the server's protocol version.
    expect(events).toEqual(shortRun(input).map((e) => parseEvent(asServed(e))));
    if (expected === BINARY) expect(bytes.subarray(0, 6)).not.toEqual(new TextEncoder().encode("data: "));
    else expect(new TextDecoder().decode(bytes.subarray(0, 6))).toBe("data: ");
  });
});
