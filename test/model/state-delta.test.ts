import { describe, expect, it } from "vitest";
import { JsonPatchOperationSchema, JsonPointerSchema, parseEvent } from "../../src/model/index.js";
import { expectInvalid, richJson } from "./helpers.js";

const delta = (...ops: unknown[]) => ({ type: "STATE_DELTA", delta: ops });
const OP_LIST = '"add" or "remove" or "replace" or "move" or "copy" or "test"';
const POINTER_MSG = "expected a JSON Pointer (RFC 6901) such as /a/0";

const VALID_POINTERS = ["", "/", "/a", "/a/0", "/a/b/c", "//", "/~0", "/~1", "/a~0b~1c", "/~01", "/ ", "/é/😀", "/-", "/a\nb"];
const INVALID_POINTERS = ["a", "a/b", "0", " /a", "~", "/~", "/a~", "/a~2", "/~a", "/a/~/b", "#/a", "/a~~0"];

describe("JSON Pointer paths", () => {
  it.each(VALID_POINTERS)("JsonPointerSchema accepts %j", (p) => {
    expect(JsonPointerSchema.parse(p)).toBe(p);
  });

  it.each(INVALID_POINTERS)("JsonPointerSchema rejects %j", (p) => {
    const result = JsonPointerSchema.safeParse(p);
    expect(result.success).toBe(false);
    expect(result.error?.issues[0]?.message).toBe(POINTER_MSG);
  });

  it.each([1, null, undefined, ["/a"]])("JsonPointerSchema rejects the non-string %j", (p) => {
    expect(JsonPointerSchema.safeParse(p).success).toBe(false);
  });

  it.each(VALID_POINTERS)("STATE_DELTA accepts path %j", (p) => {
    expect(parseEvent(delta({ op: "remove", path: p }))).toEqual(delta({ op: "remove", path: p }));
  });

  const invalidCases = INVALID_POINTERS.flatMap((p) => [
    [p, { op: "remove", path: p }, "path"],
    [p, { op: "add", path: p, value: 1 }, "path"],
    [p, { op: "move", from: p, path: "/ok" }, "from"],
    [p, { op: "copy", from: "/ok", path: p }, "path"],
  ] as const);

  it.each(invalidCases)("STATE_DELTA rejects pointer %j in %j (at %s)", (p, op, field) => {
    expectInvalid(() => parseEvent(delta(op)), {
      code: "invalid_event",
      path: ["delta", 0, field],
      message: `invalid STATE_DELTA event: delta[0].${field}: ${POINTER_MSG}, found ${JSON.stringify(p)}`,
    });
  });
});

describe("STATE_DELTA: valid operations", () => {
  const VALID_OPS: readonly [string, Record<string, unknown>][] = [
    ["add", { op: "add", path: "/a", value: 1 }],
    ["add null", { op: "add", path: "/a", value: null }],
    ["add to array end", { op: "add", path: "/list/-", value: { x: [1] } }],
    ["add at root", { op: "add", path: "", value: richJson() }],
    ["remove", { op: "remove", path: "/a" }],
    ["remove array item", { op: "remove", path: "/list/0" }],
    ["replace", { op: "replace", path: "/a", value: "s" }],
    ["replace with false", { op: "replace", path: "/a", value: false }],
    ["move", { op: "move", from: "/a", path: "/b" }],
    ["copy", { op: "copy", from: "/a", path: "/b" }],
    ["copy from root", { op: "copy", from: "", path: "/snapshot" }],
    ["test", { op: "test", path: "/a", value: [1, 2] }],
    ["test null", { op: "test", path: "/a", value: null }],
  ];

  it.each(VALID_OPS)("accepts %s", (_name, op) => {
    expect(parseEvent(delta(op))).toEqual(delta(op));
    expect(JsonPatchOperationSchema.parse(op)).toEqual(op);
  });

  it("accepts an empty patch", () => {
    expect(parseEvent(delta())).toEqual({ type: "STATE_DELTA", delta: [] });
  });

  it("accepts all operations together, in order", () => {
    const ops = VALID_OPS.map(([, op]) => op);
    expect(parseEvent(delta(...ops))).toEqual(delta(...ops));
  });

  it("keeps null values as null (not dropped)", () => {
    const out = parseEvent(delta({ op: "add", path: "/a", value: null })) as { delta: Record<string, unknown>[] };
    expect(out.delta[0]).toHaveProperty("value", null);
  });
});

// Operations are open (RFC 6902 §4; AG-UI 1.1 basic/processing): a member another operation
// defines arrives as sent. Keys no operation defines are dropped: neither transport can carry them.
describe("STATE_DELTA: members of other operations are kept, keys of none dropped", () => {
  it.each([
    ["remove keeps value and from, drops extra", { op: "remove", path: "/a", value: 1, from: "/b", extra: true }, { op: "remove", path: "/a", value: 1, from: "/b" }],
    ["add keeps from", { op: "add", path: "/a", value: 1, from: "/b" }, { op: "add", path: "/a", value: 1, from: "/b" }],
    ["replace drops extra", { op: "replace", path: "/a", value: 1, meta: {} }, { op: "replace", path: "/a", value: 1 }],
    ["move keeps value", { op: "move", from: "/a", path: "/b", value: 1 }, { op: "move", from: "/a", path: "/b", value: 1 }],
    ["copy drops extra", { op: "copy", from: "/a", path: "/b", x: null }, { op: "copy", from: "/a", path: "/b" }],
    ["test keeps from", { op: "test", path: "/a", value: 1, from: "/c" }, { op: "test", path: "/a", value: 1, from: "/c" }],
  ])("%s", (_name, op, expected) => {
    const out = parseEvent(delta(op)) as { delta: unknown[] };
    expect(out.delta).toEqual([expected]);
    expect(Object.keys(out.delta[0] as object).sort()).toEqual(Object.keys(expected).sort());
  });
});

describe("STATE_DELTA: invalid operations", () => {
  it.each([
    ["merge", '"merge"'],
    ["ADD", '"ADD"'],
    ["", '""'],
    ["_get", '"_get"'],
    [1, "1"],
    [null, "null"],
    [true, "true"],
  ])("rejects op %j, naming the op found", (op, found) => {
    const err = expectInvalid(() => parseEvent(delta({ op, path: "/a", value: 1 })), {
      code: "invalid_event",
      path: ["delta", 0, "op"],
      message: `invalid STATE_DELTA event: delta[0].op: expected ${OP_LIST}, found ${found}`,
    });
    expect(err.issues[0]?.code).toBe("invalid_union");
  });

  it("rejects an operation without op", () => {
    expectInvalid(() => parseEvent(delta({ path: "/a", value: 1 })), {
      code: "invalid_event",
      path: ["delta", 0, "op"],
      message: `invalid STATE_DELTA event: delta[0].op: expected ${OP_LIST}, found nothing`,
    });
  });

  it.each(["add", "replace", "test"])("rejects %s without value", (op) => {
    expectInvalid(() => parseEvent(delta({ op, path: "/a" })), {
      code: "invalid_event",
      path: ["delta", 0, "value"],
      message: "invalid STATE_DELTA event: delta[0].value: expected a JSON value, found nothing",
    });
  });

  it.each(["add", "replace", "test"])("rejects %s with value explicitly undefined", (op) => {
    expectInvalid(() => parseEvent(delta({ op, path: "/a", value: undefined })), {
      code: "invalid_event",
      path: ["delta", 0, "value"],
      message: "invalid STATE_DELTA event: delta[0].value: expected a JSON value, found nothing",
    });
  });

  it.each(["move", "copy"])("rejects %s without from", (op) => {
    expectInvalid(() => parseEvent(delta({ op, path: "/a" })), {
      code: "invalid_event",
      path: ["delta", 0, "from"],
      message: "invalid STATE_DELTA event: delta[0].from: expected string, found nothing",
    });
  });

  it.each(["add", "remove", "replace", "move", "copy", "test"])("rejects %s without path", (op) => {
    expectInvalid(() => parseEvent(delta({ op, from: "/x", value: 1 })), {
      code: "invalid_event",
      path: ["delta", 0, "path"],
      message: "invalid STATE_DELTA event: delta[0].path: expected string, found nothing",
    });
  });

  it.each([
    [1, "1"],
    [null, "null"],
    [["/a"], "an array"],
  ])("rejects a non-string path %j", (path, found) => {
    expectInvalid(() => parseEvent(delta({ op: "remove", path })), {
      code: "invalid_event",
      path: ["delta", 0, "path"],
      message: `invalid STATE_DELTA event: delta[0].path: expected string, found ${found}`,
    });
  });

  it.each([
    [1, "1"],
    [{}, "an object"],
  ])("rejects a non-string from %j", (from, found) => {
    expectInvalid(() => parseEvent(delta({ op: "copy", from, path: "/a" })), {
      code: "invalid_event",
      path: ["delta", 0, "from"],
      message: `invalid STATE_DELTA event: delta[0].from: expected string, found ${found}`,
    });
  });

  it.each([
    ["a string", "add", '"add"'],
    ["null", null, "null"],
    ["an array", [], "an array"],
    ["a number", 0, "0"],
  ])("rejects an operation that is %s", (_name, op, found) => {
    expectInvalid(() => parseEvent(delta(op)), {
      code: "invalid_event",
      path: ["delta", 0],
      message: `invalid STATE_DELTA event: delta[0]: expected object, found ${found}`,
    });
  });

  it("points at the failing operation's index", () => {
    expectInvalid(
      () => parseEvent(delta({ op: "remove", path: "/a" }, { op: "add", path: "/b", value: 1 }, { op: "copy", path: "/c" })),
      {
        code: "invalid_event",
        path: ["delta", 2, "from"],
        message: "invalid STATE_DELTA event: delta[2].from: expected string, found nothing",
      },
    );
  });

  it("reports a bad value inside an operation with the full path", () => {
    expectInvalid(() => parseEvent(delta({ op: "add", path: "/a", value: { list: [1, { when: new Date(0) }] } })), {
      code: "invalid_event",
      path: ["delta", 0, "value", "list", 1, "when"],
      message:
        "invalid STATE_DELTA event: delta[0].value.list[1].when: expected a plain object, found an instance of Date",
    });
  });

  it("reports problems in several operations", () => {
    const err = expectInvalid(() => parseEvent(delta({ op: "move", path: "x" }, { op: "nope" })), {
      code: "invalid_event",
      path: ["delta", 0, "from"],
      issueCount: 3,
    });
    expect(err.issues.map((i) => i.path)).toEqual([
      ["delta", 0, "from"],
      ["delta", 0, "path"],
      ["delta", 1, "op"],
    ]);
    expect(err.message).toContain('delta[1].op: expected "add"');
    expect(err.message).toContain('found "nope"');
  });
});

describe("ACTIVITY_DELTA: its patch takes the same operations", () => {
  const activity = (...patch: unknown[]) => ({ type: "ACTIVITY_DELTA", messageId: "a1", activityType: "plan", patch });
  const OPS = [
    { op: "add", path: "/steps/-", value: { title: "x" } },
    { op: "remove", path: "/steps/0" },
    { op: "replace", path: "", value: null },
    { op: "move", from: "/a", path: "/b" },
    { op: "copy", from: "/b", path: "/c" },
    { op: "test", path: "/c", value: [1] },
  ];

  it("accepts every operation, in order, and an empty patch", () => {
    expect(parseEvent(activity(...OPS))).toEqual(activity(...OPS));
    expect(parseEvent(activity())).toEqual(activity());
  });

  it("keeps a member another operation defines (RFC 6902 ignores it; it is not stripped)", () => {
    expect(parseEvent(activity({ op: "remove", path: "/a", value: 1 }))).toEqual(activity({ op: "remove", path: "/a", value: 1 }));
  });

  it.each([
    [{ op: "merge", path: "/a" }, ["patch", 1, "op"], `expected ${OP_LIST}, found "merge"`],
    [{ op: "add", path: "a", value: 1 }, ["patch", 1, "path"], `${POINTER_MSG}, found "a"`],
    [{ op: "replace", path: "/a" }, ["patch", 1, "value"], "expected a JSON value, found nothing"],
    [{ op: "copy", path: "/a" }, ["patch", 1, "from"], "expected string, found nothing"],
  ])("rejects %j, naming its place in the patch", (op, path, problem) => {
    expectInvalid(() => parseEvent(activity(OPS[0], op)), {
      code: "invalid_event",
      path,
      message: `invalid ACTIVITY_DELTA event: patch[1].${String(path[2])}: ${problem}`,
    });
  });
});
