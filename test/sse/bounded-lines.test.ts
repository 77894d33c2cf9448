/**
 * Memory the SSE parser holds for an unfinished event follows the event's length, not its number
 * of lines or chunks.
 *
 * Each data line used to be appended to a string (`data += "\n" + value`), a rope node of about 32
 * bytes per line: an event of a million empty `data:` lines held 32 MB for 1 MB of event (measured
 * 32.0 MB before, 0.5 MB after). The heap is measured in a child process run with `--expose-gc`,
 * after a full collection, while the event is still open.
 */
import { describe, expect, it } from "vitest";
import { runChild } from "../fixtures/child.js";
import { SSEParser } from "../../src/sse/parser.js";
import { TextBuilder } from "../../src/sse/text-builder.js";

describe("an SSE event of a million pieces", () => {
  it("a million `data:` lines hold less than 4 bytes of heap per line (32 before)", async () => {
    const result = await runChild("data-lines", ["--expose-gc"]);
    expect(result.dataLength).toBe(999_999);
    expect(result.held).toBeLessThan(4 * (result.pieces as number));
  }, 60_000);

  it("a data line arriving one character per chunk holds less than 4 bytes of heap per character", async () => {
    const result = await runChild("long-line", ["--expose-gc"]);
    expect(result.dataLength).toBe(1_000_000);
    expect(result.held).toBeLessThan(4 * (result.pieces as number));
  }, 60_000);
});

describe("TextBuilder", () => {
  it("joins pieces with its separator, across blocks, and empties when taken", () => {
    for (const count of [0, 1, 2, 1023, 1024, 1025, 5000]) {
      const b = new TextBuilder("\n");
      const pieces = Array.from({ length: count }, (_, i) => (i % 3 === 0 ? "" : `line ${i} ${"x".repeat(i % 20)}`));
      pieces.forEach((p, i) => {
        b.push(p);
        if (i % 700 === 0) b.settle();
      });
      const expected = pieces.join("\n");
      expect(b.count).toBe(count);
      expect(b.length).toBe(expected.length);
      expect(b.take()).toBe(expected);
      expect(b.count).toBe(0);
      expect(b.length).toBe(0);
      expect(b.take()).toBe("");
    }
  });

  it("concatenates large pieces (blocks made by size) with an empty separator", () => {
    const b = new TextBuilder("");
    const piece = "y".repeat(40_000);
    for (let i = 0; i < 5; i++) b.push(piece + i);
    expect(b.take()).toBe([0, 1, 2, 3, 4].map((i) => piece + i).join(""));
  });

  it("is reusable after clear()", () => {
    const b = new TextBuilder("-");
    b.push("a");
    b.push("b");
    b.clear();
    b.push("c");
    expect(b.take()).toBe("c");
  });
});

describe("SSEParser with many lines and tiny chunks", () => {
  it("gives the same data for an event of 3,000 data lines pushed whole or one character at a time", () => {
    const lines = Array.from({ length: 3000 }, (_, i) => (i % 2 ? `v${i}-${"z".repeat(i % 17)}` : ""));
    const stream = `${lines.map((l) => `data:${l}\n`).join("")}\n`;
    const whole = new SSEParser().push(stream);
    const parser = new SSEParser();
    const split = [...stream].flatMap((c) => parser.push(c));
    expect(whole).toHaveLength(1);
    expect(whole[0]!.data).toBe(lines.join("\n"));
    expect(split).toEqual(whole);
  });
});
