import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { BINARY_MEDIA_TYPE, SSE_MEDIA_TYPE } from "../../src/protocol/media-types.js";
import { negotiate } from "../../src/protocol/negotiate.js";

const B = BINARY_MEDIA_TYPE;
const S = SSE_MEDIA_TYPE;

const table: [accept: string | null | undefined, expected: string, why: string][] = [
  [undefined, S, "no header"],
  [null, S, "no header (null)"],
  ["", S, "empty header"],
  ["   ", S, "blank header"],
  ["*/*", S, "anything: equal, SSE"],
  ["application/vnd.ag-ui.event+proto", B, "binary only"],
  ["text/event-stream", S, "SSE only"],
  ["text/event-stream, application/vnd.ag-ui.event+proto", S, "equal q, SSE listed first"],
  ["application/vnd.ag-ui.event+proto, text/event-stream", B, "equal q, binary listed first"],
  ["application/vnd.ag-ui.event+proto;q=0.5, text/event-stream", S, "SSE has the higher q"],
  ["text/event-stream;q=0, */*", B, "SSE excluded, binary through */*"],
  ["application/json", S, "nothing acceptable"],
  ["application/vnd.ag-ui.event+proto, text/event-stream;q=0.9", B, "binary has the higher q"],
  ["application/*", B, "application/* admits binary only"],
  ["text/*", S, "text/* admits SSE only"],
  ["text/*, application/*", S, "equal q and rank, SSE listed first"],
  ["application/*, text/*", B, "equal q and rank, binary listed first"],
  ["*/*;q=0.1, application/vnd.ag-ui.event+proto;q=0.05", S, "SSE through */* at 0.1 beats binary at 0.05"],
  ["*/*, application/vnd.ag-ui.event+proto", B, "equal q, the exact binary match is more specific"],
  ["text/*, application/vnd.ag-ui.event+proto", B, "equal q, exact beats type/*"],
  ["application/vnd.ag-ui.event+proto;q=0", S, "binary excluded"],
  ["application/vnd.ag-ui.event+proto;q=0, */*", S, "the exact q=0 overrides */*"],
  ["application/vnd.ag-ui.event+proto;q=0.0, application/*", S, "exact q=0 overrides application/*"],
  ["application/vnd.ag-ui.event+proto;q=0.000", S, "q=0.000 excludes"],
  ["application/vnd.ag-ui.event+proto;q=0.001", B, "the smallest positive q still admits"],
  ["APPLICATION/VND.AG-UI.EVENT+PROTO", B, "type and subtype are case-insensitive"],
  ["Text/Event-Stream;Q=0, Application/*", B, "q's name is case-insensitive"],
  ["  application/vnd.ag-ui.event+proto \t ;  q=1  ,  text/event-stream ; q=0.999 ", B, "whitespace around parts"],
  ['text/event-stream;foo="a,b;c=\\"d", application/vnd.ag-ui.event+proto;q=0.5', S, "quoted parameter with commas"],
  ['application/vnd.ag-ui.event+proto;x="a,text/event-stream", text/event-stream;q=0.1', B, "a comma inside quotes does not split"],
  ["application/vnd.ag-ui.event+proto;q=1.5", S, "q above 1 ignores the range"],
  ["application/vnd.ag-ui.event+proto;q=0.5000", S, "q with 4 decimals ignores the range"],
  ["application/vnd.ag-ui.event+proto;q=-1", S, "negative q ignores the range"],
  ["application/vnd.ag-ui.event+proto;q=abc", S, "non-numeric q ignores the range"],
  ["application/vnd.ag-ui.event+proto;q=", S, "empty q ignores the range"],
  ['application/vnd.ag-ui.event+proto;q="1"', S, "quoted q ignores the range"],
  ["application/vnd.ag-ui.event+proto;q=.5", S, "q without its leading digit ignores the range"],
  ["application/vnd.ag-ui.event+proto;q=1., text/event-stream;q=0.", B, "'1.' and '0.' are valid qvalues"],
  ["text/event-stream;q=2, application/vnd.ag-ui.event+proto;q=0.1", B, "an invalid q ignores only its own range"],
  ["application/vnd.ag-ui.event+proto;q=0.5;q=1", S, "a repeated q ignores the range"],
  [";;,,", S, "garbage"],
  ["text/", S, "no subtype"],
  ["text/, application/vnd.ag-ui.event+proto", B, "a malformed range is ignored, the rest counts"],
  ["/event-stream, application/*", B, "no type"],
  ["*/event-stream, application/*;q=0.5", B, "*/subtype is not a media range"],
  ["application/vnd.ag-ui.event+proto;charset=utf-8", B, "extra parameters still match"],
  ["application/vnd.ag-ui.event+proto;;;q=0.9, text/event-stream;q=0.8", B, "empty parameters are allowed"],
  ["application/vnd.ag-ui.event+proto;foo, text/event-stream;q=0.1", S, "a parameter without a value ignores the range"],
  ['application/vnd.ag-ui.event+proto;foo="unterminated, text/event-stream', S, "an unterminated quote swallows the rest"],
  ["application/vnd.ag-ui.event+proto;q=0, application/vnd.ag-ui.event+proto;v=1", B, "among exact ranges, one with more parameters is more specific"],
  ["application/vnd.ag-ui.event+proto;q=0.3, application/vnd.ag-ui.event+proto;q=0.9, text/event-stream;q=0.5", S, "among equally specific ranges, the first counts"],
  ["application/vnd.ag-ui.event+protox, application/vnd.ag-ui.event+prot", S, "near misses do not match"],
  ["application/vnd.ag-ui.event+proto text/event-stream", S, "a missing comma makes one malformed range"],
  ["text/event-stream;q=0, application/vnd.ag-ui.event+proto;q=0", S, "nothing acceptable falls back to SSE"],
  ["*/*;q=0.8, text/event-stream;q=0.5", B, "the exact SSE range lowers SSE below */*"],
  ["\u00e9/*, application/*", B, "non-ASCII is not a token"],
];

describe("negotiate", () => {
  it.each(table)("Accept: %j -> %s (%s)", (accept, expected) => {
    expect(negotiate(accept)).toBe(expected);
  });

  it("never throws and always answers one of the two types", () => {
    const piece = fc.constantFrom("application", "text", "*", "/", "vnd.ag-ui.event+proto", "event-stream", ";", ",", "q", "=", "0", "1", ".", "5", '"', "\\", " ", "\t", "x", "é");
    fc.assert(
      fc.property(fc.oneof(fc.string({ unit: "binary" }), fc.array(piece, { maxLength: 40 }).map((a) => a.join(""))), (accept) => {
        const result = negotiate(accept);
        expect(result === B || result === S).toBe(true);
      }),
      { numRuns: 2000 },
    );
  });

  it("answers SSE for values that are not strings", () => {
    expect(negotiate(["application/vnd.ag-ui.event+proto"] as unknown as string)).toBe(S);
    expect(negotiate(42 as unknown as string)).toBe(S);
  });

  it("is fast enough to run per request", () => {
    const headers = table.map(([accept]) => accept);
    const started = performance.now();
    let binary = 0;
    for (let i = 0; i < 100_000; i++) if (negotiate(headers[i % headers.length]) === B) binary++;
    expect(binary).toBeGreaterThan(0);
    expect(performance.now() - started).toBeLessThan(2_000);
  });
});
