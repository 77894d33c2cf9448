// CanonicalSSE, the relay's scan of an SSE upstream's bytes for events written `data: <text>\n\n`:
// what it keeps is exactly those events' bytes, however the stream is cut, without the comments,
// `id:` lines and blank lines between them; anything else makes the stream not canonical for good.
import { describe, expect, it } from "vitest";
import { CanonicalSSE } from "../../src/proxy/canonical-sse.js";
import { concatBytes } from "../../src/util/bytes.js";
import { prng } from "../fixtures/corpus.js";

const utf8 = new TextEncoder();
const text = (bytes: Uint8Array): string => new TextDecoder().decode(bytes);

/** `bytes` cut at `cuts`, each piece at its own offset in a buffer of its own (so words fall anywhere). */
function pieces(bytes: Uint8Array, cuts: number[]): Uint8Array[] {
  const out: Uint8Array[] = [];
  let at = 0;
  for (const [k, cut] of [...cuts, bytes.length].entries()) {
    const shift = k % 4;
    const copy = new Uint8Array(shift + cut - at);
    copy.set(bytes.subarray(at, cut), shift);
    out.push(copy.subarray(shift));
    at = cut;
  }
  return out;
}

/** What the scan counts and keeps of `chunks`, taking after each. */
function scan(chunks: Uint8Array[]): { counts: number[]; kept: string } {
  const canonical = new CanonicalSSE();
  const counts: number[] = [];
  const kept: Uint8Array[] = [];
  for (const chunk of chunks) {
    counts.push(canonical.push(chunk));
    const bytes = canonical.take();
    if (bytes !== undefined) kept.push(bytes);
  }
  return { counts, kept: text(concatBytes(kept)) };
}

// Some with a tab, which JSON allows between its tokens: a byte below 14 that ends no line.
const EVENTS = Array.from({ length: 40 }, (_, i) => `data: {"type":"TEXT_MESSAGE_CONTENT","messageId":"m",${i % 3 === 0 ? "\t" : ""}"delta":"wörd ${i} 🌤\\t"}\n\n`);

describe("CanonicalSSE", () => {
  it("keeps every event's bytes, and counts each once, wherever the stream is cut", () => {
    const bytes = utf8.encode(EVENTS.join(""));
    const random = prng(3);
    for (let round = 0; round < 200; round++) {
      const cuts = [...new Set(Array.from({ length: 1 + Math.floor(random() * 30) }, () => 1 + Math.floor(random() * (bytes.length - 1))))].sort((a, b) => a - b);
      const { counts, kept } = scan(pieces(bytes, cuts));
      expect(kept).toBe(EVENTS.join(""));
      expect(counts.reduce((a, b) => a + b, 0)).toBe(EVENTS.length);
    }
  });

  it("counts an event in the chunk that ends it, and keeps none of it before", () => {
    const bytes = utf8.encode(EVENTS[0]! + EVENTS[1]!);
    const canonical = new CanonicalSSE();
    const cut = EVENTS[0]!.length + 10;
    expect(canonical.push(bytes.subarray(0, cut))).toBe(1);
    expect(text(canonical.take()!)).toBe(EVENTS[0]);
    expect(canonical.push(bytes.subarray(cut, bytes.length - 1))).toBe(0);
    expect(canonical.take()).toBeUndefined();
    expect(canonical.push(bytes.subarray(bytes.length - 1))).toBe(1);
    expect(text(canonical.take()!)).toBe(EVENTS[1]);
  });

  it("drops comments, id: lines and blank lines between events, wherever the stream is cut", () => {
    const stream = `: hello\n\nid: 0\n${EVENTS[0]}\n\n: keep-alive\n\nid: 1\n${EVENTS[1]}id:\n${EVENTS[2]}:\n`;
    const bytes = utf8.encode(stream);
    for (let cut = 1; cut < bytes.length; cut++) {
      for (const second of [cut + 1, cut + 7]) {
        const { counts, kept } = scan(pieces(bytes, second < bytes.length ? [cut, second] : [cut]));
        expect(kept).toBe(EVENTS.slice(0, 3).join(""));
        expect(counts.reduce((a, b) => a + b, 0)).toBe(3);
      }
    }
  });

  it("tells the longest data line of the events it holds, in bytes", () => {
    const canonical = new CanonicalSSE();
    canonical.push(utf8.encode(`data: ab\n\ndata: é\n\n`));
    expect(canonical.longest).toBe("data: ab".length);
    canonical.drop();
    expect(canonical.longest).toBe(0);
    canonical.push(utf8.encode(`data: ééé\n\n`));
    expect(canonical.longest).toBe(12);
  });

  const NOT_CANONICAL: Record<string, string> = {
    "a CRLF line end": `data: {}\r\n\r\n`,
    "a lone CR inside the data line": `data: {"a":1}\revent: x\n\n`,
    "an event: line": `event: message\ndata: {}\n\n`,
    "a retry: line": `retry: 5\n\n`,
    "a data line without its space": `data:{}\n\n`,
    "two data lines in one event": `data: {\ndata: }\n\n`,
    "a comment inside an event": `data: {}\n: hi\n\n`,
    "an id: line inside an event": `data: {}\nid: 3\n\n`,
    "a byte order mark": `\uFEFFdata: {}\n\n`,
    "an id line without a colon": `id\ndata: {}\n\n`,
  };
  for (const [name, tail] of Object.entries(NOT_CANONICAL)) {
    it(`is not canonical, from there on, at ${name}, wherever the stream is cut`, () => {
      const bytes = utf8.encode(EVENTS[0]! + tail + EVENTS[1]!);
      for (let cut = 1; cut < bytes.length; cut++) {
        const canonical = new CanonicalSSE();
        const first = canonical.push(bytes.subarray(0, cut));
        if (first >= 0) canonical.take();
        expect(canonical.push(bytes.subarray(cut)) === -1 || first === -1).toBe(true);
        expect(canonical.push(utf8.encode(EVENTS[2]!))).toBe(-1);
        expect(canonical.take()).toBeUndefined();
      }
    });
  }
});
