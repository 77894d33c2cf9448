import { describe, expect, it } from "vitest";
import { z } from "zod";
import { AguiWireError, ValidationError } from "../../src/util/errors.js";
import { formatIssues, formatPath, parseEvent } from "../../src/model/index.js";
import { describeFound } from "../../src/model/parse.js";
import { validationError } from "./helpers.js";

describe("formatPath", () => {
  it.each([
    [[], ""],
    [["a"], "a"],
    [[0], "[0]"],
    [["a", 0, "b"], "a[0].b"],
    [[0, "a"], "[0].a"],
    [["messages", 2, "toolCalls", 0, "id"], "messages[2].toolCalls[0].id"],
    [["$x", "_y", "a1"], "$x._y.a1"],
    [["a-b"], '["a-b"]'],
    [["a", "b c"], 'a["b c"]'],
    [["a", ""], 'a[""]'],
    [["1a"], '["1a"]'],
    [["a", "0"], 'a["0"]'],
    [["a", 'q"uote'], 'a["q\\"uote"]'],
    [[Symbol("s")], '["Symbol(s)"]'],
  ] as [PropertyKey[], string][])("formats %j as %j", (path, expected) => {
    expect(formatPath(path)).toBe(expected);
  });
});

describe("describeFound", () => {
  it.each([
    [undefined, "nothing"],
    [null, "null"],
    [[], "an array"],
    [[1, 2], "an array"],
    [{}, "an object"],
    [new Date(0), "an object"],
    ["", '""'],
    ["x", '"x"'],
    ['a"b', '"a\\"b"'],
    [0, "0"],
    [-1.5, "-1.5"],
    [NaN, "NaN"],
    [Infinity, "Infinity"],
    [true, "true"],
    [false, "false"],
    [() => 1, "a function"],
  ])("describes %j as %s", (value, expected) => {
    expect(describeFound(value)).toBe(expected);
  });

  it("shortens strings longer than 60 characters", () => {
    expect(describeFound("y".repeat(60))).toBe(JSON.stringify("y".repeat(60)));
    expect(describeFound("y".repeat(61))).toBe(`"${"y".repeat(60)}…"`);
  });
});

describe("formatIssues", () => {
  it("joins one clause per issue with '; '", () => {
    const schema = z.object({ a: z.string(), b: z.object({ c: z.number() }) });
    const issues = schema.safeParse({ a: 1, b: { c: "x" } }, { reportInput: true }).error?.issues ?? [];
    expect(formatIssues(issues)).toBe('a: expected string, found 1; b.c: expected number, found "x"');
  });

  it("omits the path of a root issue", () => {
    const issues = z.string().safeParse(1, { reportInput: true }).error?.issues ?? [];
    expect(formatIssues(issues)).toBe("expected string, found 1");
  });

  it("says what was expected for a literal", () => {
    const issues = z.object({ k: z.literal("x") }).safeParse({ k: "y" }, { reportInput: true }).error?.issues ?? [];
    expect(formatIssues(issues)).toBe('k: expected "x", found "y"');
  });

  it("returns an empty string for no issues", () => {
    expect(formatIssues([])).toBe("");
  });
});

describe("ValidationError from parseEvent", () => {
  it("carries zod issues with input, code and path", () => {
    const err = validationError(() => parseEvent({ type: "RUN_STARTED", threadId: 7, runId: "r" }));
    expect(err).toBeInstanceOf(ValidationError);
    expect(err).toBeInstanceOf(AguiWireError);
    expect(err.name).toBe("ValidationError");
    expect(err.issues).toHaveLength(1);
    expect(err.issues[0]).toMatchObject({ code: "invalid_type", expected: "string", path: ["threadId"], input: 7 });
  });

  it("has a message naming the event type, the path and the problem", () => {
    expect(() => parseEvent({ type: "RUN_STARTED", threadId: 7, runId: "r" })).toThrow(
      "invalid RUN_STARTED event: threadId: expected string, found 7",
    );
  });
});
