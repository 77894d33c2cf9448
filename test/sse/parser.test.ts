import { describe, expect, it } from "vitest";
import { AguiWireError } from "../../src/util/errors.js";
import { DEFAULT_MAX_EVENT_BYTES, SSEParser, type SSEMessage, type SSEParserOptions } from "../../src/sse/parser.js";

const utf8 = (s: string) => new TextEncoder().encode(s);

interface Outcome {
  messages: SSEMessage[];
  error?: unknown;
  lastEventId: string;
  retry: number | undefined;
}

/** Pushes every chunk, then ends; collects messages and the first error. */
function run(chunks: (string | Uint8Array)[], options?: SSEParserOptions): Outcome {
  const parser = new SSEParser(options);
  const messages: SSEMessage[] = [];
  try {
    for (const chunk of chunks) messages.push(...parser.push(chunk));
    parser.end();
  } catch (error) {
    return { messages, error, lastEventId: parser.lastEventId, retry: parser.retry };
  }
  return { messages, lastEventId: parser.lastEventId, retry: parser.retry };
}

/** The ways a test input is cut: whole, as bytes, byte by byte, UTF-16 unit by unit, in pairs. */
function chunkings(input: string | Uint8Array): (string | Uint8Array)[][] {
  const bytes = typeof input === "string" ? utf8(input) : input;
  const out: (string | Uint8Array)[][] = [[bytes], Array.from(bytes, (_, i) => bytes.subarray(i, i + 1))];
  const pairs: Uint8Array[] = [];
  for (let i = 0; i < bytes.length; i += 2) pairs.push(bytes.subarray(i, i + 2));
  out.push(pairs);
  // With empty chunks interleaved, which must change nothing.
  out.push(Array.from(bytes, (_, i) => [bytes.subarray(i, i + 1), new Uint8Array(0)]).flat());
  if (typeof input === "string") {
    out.push([input], input.split(""), [...input].flatMap((c) => [c, ""]));
  }
  return out;
}

/** Runs every chunking of `input` and checks they all agree; returns the common outcome. */
function parseAll(input: string | Uint8Array, options?: SSEParserOptions): Outcome {
  const [first, ...rest] = chunkings(input).map((chunks) => run(chunks, options));
  for (const other of rest) {
    expect(other.messages).toEqual(first!.messages);
    expect(other.lastEventId).toBe(first!.lastEventId);
    expect(other.retry).toBe(first!.retry);
    expect((other.error as AguiWireError | undefined)?.code).toBe((first!.error as AguiWireError | undefined)?.code);
  }
  return first!;
}

function datas(input: string | Uint8Array): string[] {
  const outcome = parseAll(input);
  expect(outcome.error).toBeUndefined();
  return outcome.messages.map((m) => m.data);
}

function expectCode(error: unknown, code: string): void {
  expect(error).toBeInstanceOf(AguiWireError);
  expect((error as AguiWireError).code).toBe(code);
}

describe("SSEParser line endings", () => {
  it("splits on LF", () => {
    expect(datas("data: a\n\ndata: b\n\n")).toEqual(["a", "b"]);
  });
  it("splits on CRLF", () => {
    expect(datas("data: a\r\n\r\ndata: b\r\n\r\n")).toEqual(["a", "b"]);
  });
  it("splits on a lone CR", () => {
    expect(datas("data: a\r\rdata: b\r\r")).toEqual(["a", "b"]);
  });
  it("accepts the three endings mixed in one stream", () => {
    expect(datas("data: a\r\ndata: b\rdata: c\n\r\ndata: d\r\n\r")).toEqual(["a\nb\nc", "d"]);
  });
  it("treats a CR at the end of a chunk and an LF at the start of the next as one line end", () => {
    // Were the pair two line ends, "a" would be dispatched alone and "b" after it.
    expect(run(["data: a\r", "\ndata: b\r", "\n\r", "\n"]).messages.map((m) => m.data)).toEqual(["a\nb"]);
    expect(run([utf8("data: a\r"), utf8("\ndata: b\r\n"), utf8("\r"), utf8("\n")]).messages.map((m) => m.data)).toEqual([
      "a\nb",
    ]);
  });
  it("keeps the pending LF skip across empty chunks", () => {
    expect(run(["data: a\r", "", new Uint8Array(0), "\ndata: b\n\n"]).messages.map((m) => m.data)).toEqual(["a\nb"]);
  });
  it("skips only one LF after a CR that ends a chunk", () => {
    expect(run(["data: a\r", "\n\n"]).messages.map((m) => m.data)).toEqual(["a"]);
  });
  it("reads CR then a non-LF chunk start as a line end followed by a new line", () => {
    expect(run(["data: a\r", "data: b\r\r"]).messages.map((m) => m.data)).toEqual(["a\nb"]);
  });
  it("reads CR CR split across chunks as two line ends", () => {
    expect(run(["data: a\r", "\r"]).messages.map((m) => m.data)).toEqual(["a"]);
  });
  it("dispatches only once for several blank lines", () => {
    expect(datas("data: a\n\n\n\n\r\n\r")).toEqual(["a"]);
  });
});

describe("SSEParser BOM", () => {
  it("strips one leading BOM", () => {
    expect(datas("\uFEFFdata: a\n\n")).toEqual(["a"]);
  });
  it("strips only one: a second BOM is part of the first field name", () => {
    expect(datas("\uFEFF\uFEFFdata: a\n\ndata: b\n\n")).toEqual(["b"]);
  });
  it("does not strip a BOM that is not at the start of the stream", () => {
    expect(datas("data: a\n\n\uFEFFdata: b\n\n")).toEqual(["a"]);
    expect(datas("data: \uFEFFa\n\n")).toEqual(["\uFEFFa"]);
  });
  it("strips a BOM whose bytes are split across chunks", () => {
    expect(run([new Uint8Array([0xef]), new Uint8Array([0xbb]), new Uint8Array([0xbf, 0x64]), utf8("ata: a\n\n")]).messages).toEqual([
      { data: "a", event: "", id: "" },
    ]);
  });
  it("strips a BOM after leading empty chunks", () => {
    expect(run(["", new Uint8Array(0), "\uFEFFdata: a\n\n"]).messages.map((m) => m.data)).toEqual(["a"]);
  });
});

describe("SSEParser fields", () => {
  it("ignores comment lines, also between data lines", () => {
    expect(datas(": hello\n:\ndata: a\n: in between\ndata: b\n\n: bye\n")).toEqual(["a\nb"]);
  });
  it("a comment line alone does not dispatch or count as a blank line", () => {
    expect(datas("data: a\n:\n\n")).toEqual(["a"]);
  });
  it("joins multi-line data with LF, removing only the final LF", () => {
    expect(datas("data: a\ndata: b\ndata: c\n\n")).toEqual(["a\nb\nc"]);
    expect(datas("data: a\ndata\n\n")).toEqual(["a\n"]);
  });
  it("reads a line without a colon as a field with an empty value", () => {
    expect(datas("data\n\n")).toEqual([""]);
    expect(datas("data\ndata\n\n")).toEqual(["\n"]);
    const outcome = parseAll("event: x\nevent\ndata: a\n\n");
    expect(outcome.messages).toEqual([{ data: "a", event: "", id: "" }]);
  });
  it("dispatches an event whose data is empty", () => {
    expect(datas("data:\n\n")).toEqual([""]);
    expect(datas("data: \n\n")).toEqual([""]);
  });
  it("removes exactly one space after the colon", () => {
    expect(datas("data:a\n\ndata: a\n\ndata:  a\n\ndata:\ta\n\ndata: a \n\n")).toEqual(["a", "a", " a", "\ta", "a "]);
  });
  it("keeps colons in the value", () => {
    expect(datas('data: {"a":1}\n\ndata::\n\n')).toEqual(['{"a":1}', ":"]);
  });
  it("ignores unknown fields, matching names case-sensitively", () => {
    expect(datas("Data: x\nDATA: y\nfoo: bar\ndatas: z\ndat: w\n data: v\ndata: a\n\n")).toEqual(["a"]);
  });
  it("does not dispatch an event without data", () => {
    expect(datas("event: x\n\nid: 1\n\n\n")).toEqual([]);
  });
  it("sets the event type, reset after each dispatch", () => {
    const outcome = parseAll("event: ping\ndata: a\n\ndata: b\n\nevent: pong\nevent: last\ndata: c\n\n");
    expect(outcome.messages).toEqual([
      { data: "a", event: "ping", id: "" },
      { data: "b", event: "", id: "" },
      { data: "c", event: "last", id: "" },
    ]);
  });
  it("resets the event type also on a blank line without data", () => {
    expect(parseAll("event: x\n\ndata: a\n\n").messages).toEqual([{ data: "a", event: "", id: "" }]);
  });
  it("sets the last event ID, which persists across events", () => {
    const outcome = parseAll("id: 1\ndata: a\n\ndata: b\n\nid: 2\ndata: c\n\nid\ndata: d\n\n");
    expect(outcome.messages.map((m) => m.id)).toEqual(["1", "1", "2", ""]);
    expect(outcome.lastEventId).toBe("");
  });
  it("ignores an id containing NUL", () => {
    const outcome = parseAll("id: 7\ndata: a\n\nid: 8\0x\ndata: b\n\n");
    expect(outcome.messages.map((m) => m.id)).toEqual(["7", "7"]);
    expect(outcome.lastEventId).toBe("7");
  });
  it("updates lastEventId on a blank line without data, and not before the event ends", () => {
    const parser = new SSEParser();
    parser.push("id: 3\n");
    expect(parser.lastEventId).toBe("");
    parser.push("\n");
    expect(parser.lastEventId).toBe("3");
    parser.push("id: 4\ndata: x\n");
    expect(parser.lastEventId).toBe("3");
    expect(parser.push("\n")).toEqual([{ data: "x", event: "", id: "4" }]);
    expect(parser.lastEventId).toBe("4");
  });
  it("sets retry only from ASCII digits", () => {
    expect(parseAll("retry: 1500\n\n").retry).toBe(1500);
    expect(parseAll("retry:0\n\n").retry).toBe(0);
    for (const bad of ["retry: 1.5", "retry: -1", "retry: 1e3", "retry: ", "retry", "retry: 12a", "retry:  12", "retry: ١٢"]) {
      expect(parseAll(`${bad}\n\n`).retry).toBeUndefined();
    }
    expect(parseAll("retry: 10\nretry: x\n\n").retry).toBe(10);
    expect(new SSEParser().retry).toBeUndefined();
  });
  it("retry has no other effect", () => {
    expect(parseAll("retry: 10\ndata: a\n\n").messages).toEqual([{ data: "a", event: "", id: "" }]);
  });
});

describe("SSEParser UTF-8", () => {
  const text = "data: é€😀 \u2028 𝄞 a\n\n";
  it("keeps multibyte characters whole when their bytes are split across chunks", () => {
    // parseAll includes byte-by-byte pushes, so every split point of every character is covered.
    expect(datas(text)).toEqual(["é€😀 \u2028 𝄞 a"]);
  });
  it("keeps astral-plane characters whole at every split point", () => {
    const bytes = utf8("data: 😀\n\n");
    for (let cut = 0; cut <= bytes.length; cut++) {
      expect(run([bytes.subarray(0, cut), bytes.subarray(cut)]).messages).toEqual([{ data: "😀", event: "", id: "" }]);
    }
  });
  it("turns invalid UTF-8 into U+FFFD", () => {
    expect(datas(new Uint8Array([...utf8("data: "), 0xff, 0x61, 0xc3, 0x0a, 0x0a]))).toEqual(["\uFFFDa\uFFFD"]);
    expect(datas(new Uint8Array([...utf8("data: "), 0xe2, 0x82, 0x0a, 0x0a]))).toEqual(["\uFFFD"]);
    expect(datas(new Uint8Array([...utf8("data: "), 0xed, 0xa0, 0x80, 0x0a, 0x0a]))).toEqual(["\uFFFD\uFFFD\uFFFD"]);
  });
  it("turns a UTF-8 sequence cut short by a string chunk into U+FFFD", () => {
    expect(run([new Uint8Array([...utf8("data: "), 0xe2, 0x82]), "x\n\n"]).messages.map((m) => m.data)).toEqual(["\uFFFDx"]);
  });
  it("accepts strings and bytes mixed", () => {
    expect(run(["data: a", utf8("b\n"), "\n", utf8("data: c\n\n")]).messages.map((m) => m.data)).toEqual(["ab", "c"]);
  });
});

describe("SSEParser end of stream", () => {
  const truncated = [
    "data: a\n",
    "data: a",
    "data",
    "data:",
    "data: a\ndata: b",
    "event: x\ndata: a\n",
    "data: a\n: comment\n",
    "data: a\r",
    "data: a\r\n",
    "data: a\n\ndata: b\n",
    // A partial last line that could still have become a data line counts as a cut data line.
    "d",
    "da",
    "dat",
    "data: a\n\ndat",
  ];
  for (const input of truncated) {
    it(`fails with truncated_stream on ${JSON.stringify(input)}`, () => {
      const outcome = parseAll(input);
      expectCode(outcome.error, "truncated_stream");
      expect((outcome.error as Error).message).toMatch(/^SSE stream ended inside an event: expected a blank line/);
    });
  }
  const clean = ["", "data: a\n\n", "data: a\r\n\r", "data: a\n\r", ": comment", "datum", "dta", "event: x", "event: x\n", "id: 1", "id: 1\n", "retry: 5", "foo: data", "data: a\n\n: bye"];
  for (const input of clean) {
    it(`ends cleanly on ${JSON.stringify(input)}`, () => {
      expect(parseAll(input).error).toBeUndefined();
    });
  }
  it("reports a cut partial data field name with the characters read", () => {
    for (const input of ["d", "da", "dat"]) {
      const outcome = parseAll(input);
      expectCode(outcome.error, "truncated_stream");
      expect((outcome.error as Error).message).toBe(
        `SSE stream ended inside an event: expected a blank line to end it, found the end after ${input.length} characters`,
      );
      expect(outcome.messages).toEqual([]);
    }
    const after = parseAll("data: a\n\nda");
    expectCode(after.error, "truncated_stream");
    expect(after.messages).toEqual([{ data: "a", event: "", id: "" }]);
  });
  it("does not count an unfinished event's id", () => {
    expect(parseAll("id: 1\ndata: a\n\nid: 2\n").lastEventId).toBe("1");
  });
  it("fails on a data line whose last UTF-8 sequence is cut short, and not on another line", () => {
    expectCode(run([new Uint8Array([...utf8("data: "), 0xe2])]).error, "truncated_stream");
    expect(run([new Uint8Array([...utf8("data: a\n\n: "), 0xe2])]).error).toBeUndefined();
  });
  it("after a clean end, parses a new stream (BOM included) and keeps lastEventId and retry", () => {
    const parser = new SSEParser();
    expect(parser.push("id: 5\nretry: 9\ndata: a\n\n: x")).toHaveLength(1);
    parser.end();
    expect(parser.push("\uFEFFdata: b\n\n")).toEqual([{ data: "b", event: "", id: "5" }]);
    expect(parser.lastEventId).toBe("5");
    expect(parser.retry).toBe(9);
  });
  it("does not carry a pending CR's LF skip into the next stream", () => {
    const parser = new SSEParser();
    parser.push("data: a\n\r");
    parser.end();
    expect(parser.push("\ndata: b\n\n")).toEqual([{ data: "b", event: "", id: "" }]);
  });
});

describe("SSEParser size bound", () => {
  it("defaults to 16 MiB", () => {
    expect(DEFAULT_MAX_EVENT_BYTES).toBe(16 * 1024 * 1024);
  });
  it("accepts an event exactly at the bound and rejects one past it", () => {
    // "data: " + 14 characters is a 20-character line.
    expect(parseAll(`data: ${"x".repeat(14)}\n\n`, { maxEventBytes: 20 }).messages).toHaveLength(1);
    const outcome = parseAll(`data: ${"x".repeat(15)}\n\n`, { maxEventBytes: 20 });
    expectCode(outcome.error, "frame_too_large");
    expect((outcome.error as Error).message).toBe(
      "SSE event too large: expected at most 20 UTF-16 units (maxEventBytes), found at least 21",
    );
  });
  it("counts the data already read plus the line being read", () => {
    // After the first line the data holds "aaaa\n" (5); the second line may then be 15 long.
    expect(parseAll("data: aaaa\ndata: bbbbbbbbb\n\n", { maxEventBytes: 20 }).messages).toHaveLength(1);
    expectCode(parseAll("data: aaaa\ndata: bbbbbbbbbb\n\n", { maxEventBytes: 20 }).error, "frame_too_large");
  });
  it("counts non-data lines too while they are read, but not once they end", () => {
    expectCode(parseAll(`: ${"c".repeat(30)}\n`, { maxEventBytes: 20 }).error, "frame_too_large");
    // Data "ab\n" (3) plus each 17-character line is 20; were ended lines kept in the count,
    // the second one would pass the bound.
    const input = `data: ab\nevent: ${"e".repeat(10)}\nid: ${"1".repeat(13)}\ndata: x\n\n`;
    expect(parseAll(input, { maxEventBytes: 20 }).messages).toEqual([{ data: "ab\nx", event: "eeeeeeeeee", id: "1".repeat(13) }]);
    expectCode(parseAll(input, { maxEventBytes: 19 }).error, "frame_too_large");
  });
  it("bounds each event on its own", () => {
    const input = `data: ${"x".repeat(14)}\n\n`.repeat(50);
    expect(parseAll(input, { maxEventBytes: 20 }).messages).toHaveLength(50);
  });
  it("throws as soon as a long line passes the bound, not at its end", () => {
    const parser = new SSEParser({ maxEventBytes: 1000 });
    parser.push("data: ");
    let pushed = 6;
    let error: unknown;
    for (let i = 0; i < 100_000 && error === undefined; i++) {
      try {
        parser.push("x");
        pushed++;
      } catch (e) {
        error = e;
      }
    }
    expectCode(error, "frame_too_large");
    expect(pushed).toBe(1000);
  });
  it("throws at the default bound while a huge line arrives in 64 KiB byte chunks", () => {
    const parser = new SSEParser();
    const chunk = new Uint8Array(64 * 1024).fill(0x78);
    parser.push("data: ");
    let total = 6;
    let error: unknown;
    let chunks = 0;
    while (error === undefined && chunks < 1000) {
      try {
        parser.push(chunk);
        total += chunk.length;
        chunks++;
      } catch (e) {
        error = e;
      }
    }
    expectCode(error, "frame_too_large");
    // The chunk that would pass 16 MiB is the one that throws.
    expect(total).toBeLessThanOrEqual(DEFAULT_MAX_EVENT_BYTES);
    expect(total + chunk.length).toBeGreaterThan(DEFAULT_MAX_EVENT_BYTES);
  });
  it("throws on one chunk that holds a too-large complete line", () => {
    const parser = new SSEParser({ maxEventBytes: 100 });
    expect(() => parser.push(`data: ${"x".repeat(200)}\n\n`)).toThrow(/too large/);
  });
  it("rejects options that are not a positive integer", () => {
    for (const bad of [0, -1, 1.5, Number.NaN, -Infinity]) {
      expect(() => new SSEParser({ maxEventBytes: bad })).toThrow(RangeError);
    }
    expect(() => new SSEParser({ maxEventBytes: Infinity })).not.toThrow();
  });
});

describe("SSEParser errors are final", () => {
  it("rethrows the same error from push and end after frame_too_large", () => {
    const parser = new SSEParser({ maxEventBytes: 10 });
    let first: unknown;
    try {
      parser.push("data: 0123456789\n\n");
    } catch (e) {
      first = e;
    }
    expectCode(first, "frame_too_large");
    expect(() => parser.push("data: a\n\n")).toThrow(first as Error);
    expect(() => parser.end()).toThrow(first as Error);
  });
  it("a chunk that completes messages and then fails returns them; the next call throws", () => {
    const parser = new SSEParser({ maxEventBytes: 10 });
    expect(parser.push("data: a\n\ndata: b\n\ndata: 0123456789\n\n")).toEqual([
      { data: "a", event: "", id: "" },
      { data: "b", event: "", id: "" },
    ]);
    let first: unknown;
    try {
      parser.push("data: c\n\n");
    } catch (e) {
      first = e;
    }
    expectCode(first, "frame_too_large");
    expect((first as Error).message).toBe(
      "SSE event too large: expected at most 10 UTF-16 units (maxEventBytes), found at least 16",
    );
    // The same error object, from push and end alike.
    for (const again of [() => parser.push("data: a\n\n"), () => parser.end()]) {
      let thrown: unknown;
      try {
        again();
      } catch (e) {
        thrown = e;
      }
      expect(thrown).toBe(first);
    }
    // The same failure, ended rather than pushed: end() throws it.
    const ended = new SSEParser({ maxEventBytes: 10 });
    expect(ended.push("data: a\n\ndata: 0123456789\n\n")).toHaveLength(1);
    let second: unknown;
    try {
      ended.end();
    } catch (e) {
      second = e;
    }
    expectCode(second, "frame_too_large");
    expect((second as Error).message).toBe((first as Error).message);
    // With no message completed before it in the chunk, the push throws at once.
    const direct = new SSEParser({ maxEventBytes: 10 });
    expect(direct.push("data: a\n\n")).toHaveLength(1);
    expect(() => direct.push("data: 0123456789\n\n")).toThrow((first as Error).message);
  });
  it("rethrows the same error after truncated_stream", () => {
    const parser = new SSEParser();
    parser.push("data: a");
    let first: unknown;
    try {
      parser.end();
    } catch (e) {
      first = e;
    }
    expectCode(first, "truncated_stream");
    let again: unknown;
    try {
      parser.push("\n\n");
    } catch (e) {
      again = e;
    }
    expect(again).toBe(first);
  });
});

describe("SSEParser work is linear", () => {
  it("reads a 2 MB line pushed 4 characters at a time quickly", () => {
    const parser = new SSEParser();
    parser.push("data: ");
    const started = performance.now();
    for (let i = 0; i < 500_000; i++) parser.push("abcd");
    const messages = parser.push("\n\n");
    expect(messages[0]!.data.length).toBe(2_000_000);
    // A parser that re-scanned or re-copied the pending line per chunk would take minutes here.
    expect(performance.now() - started).toBeLessThan(5_000);
  });
  it("reads 100k tiny events in 1-character string chunks", () => {
    const parser = new SSEParser();
    const text = "data: a\r\n\r\n".repeat(100_000);
    let count = 0;
    for (let i = 0; i < text.length; i++) count += parser.push(text[i]!).length;
    expect(count).toBe(100_000);
  });
});
