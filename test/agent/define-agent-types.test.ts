/**
 * Where TypeScript reports a wrong event yielded by a `defineAgent` generator, compiled in memory
 * against the sources (test/package/packed.test.ts checks the annotated case against the packed
 * declarations too).
 *
 * - Declared `AgentGenerator`: each wrong event at its own `yield`, naming the type and field.
 * - Not declared: TypeScript (5.9) checks a `yield` only against a return type the generator
 *   writes (checker.ts, checkYieldExpression: getReturnTypeFromAnnotation), never against one it
 *   takes from context, whatever defineAgent's parameter says; and it elaborates a mismatched
 *   argument into an arrow function's expression body only, never into a block body. So the
 *   wrong event fails the whole function, at the function, the first wrong one only. The test
 *   pins that, so that a TypeScript that does better is noticed, and checks the message still
 *   names the type and field.
 */
import { join } from "node:path";
import ts from "typescript";
import { beforeAll, describe, expect, it } from "vitest";

const root = join(import.meta.dirname, "..", "..");
const options: ts.CompilerOptions = {
  module: ts.ModuleKind.NodeNext,
  moduleResolution: ts.ModuleResolutionKind.NodeNext,
  target: ts.ScriptTarget.ES2022,
  lib: ["lib.es2022.d.ts"],
  types: ["node"],
  strict: true,
  skipLibCheck: true,
  noEmit: true,
};

/** One diagnostic of the in-memory file: its 1-based line and column, and its flattened text. */
interface Reported {
  line: number;
  column: number;
  message: string;
}

/** The diagnostics of one in-memory module `lines` (the rest read from disk) that fall in it. */
function check(lines: string[]): Reported[] {
  const name = join(root, "test", "agent", "__define-agent.ts");
  const text = lines.join("\n");
  const host = ts.createCompilerHost(options);
  const { getSourceFile, fileExists, readFile } = host;
  host.getSourceFile = (file, version, ...rest) => (file === name ? ts.createSourceFile(file, text, version) : getSourceFile(file, version, ...rest));
  host.fileExists = (file) => file === name || fileExists(file);
  host.readFile = (file) => (file === name ? text : readFile(file));
  const program = ts.createProgram([name], options, host);
  return ts
    .getPreEmitDiagnostics(program)
    .filter((d) => d.file?.fileName === name)
    .map((d) => {
      const { line, character } = d.file!.getLineAndCharacterOfPosition(d.start!);
      return { line: line + 1, column: character + 1, message: ts.flattenDiagnosticMessageText(d.messageText, "\n") };
    });
}

const body = [
  `  yield { type: "RUN_STARTED", threadId: input.threadId, runId: input.runId };`,
  `  yield { type: "TEXT_MESSAGE_CONTENT", messageId: "m", delta: 1 };`,
  `  yield { type: "TEXT_MESSAGE_END", messageId: "m", delta: "x" };`,
  `  yield { type: "RUN_FINISHD", threadId: input.threadId, runId: input.runId };`,
  `  yield { type: "RUN_FINISHED", threadId: input.threadId, runId: input.runId };`,
  `});`,
];

// One program for the three cases (building one takes seconds on a busy two-core machine): the
// cases are sections of one module, told apart by their lines.
const right = [
  `export const a = defineAgent(async function* (input, { signal }) {`,
  `  if (!signal.aborted) yield { type: "RUN_STARTED", threadId: input.threadId, runId: input.runId };`,
  `  yield { type: "TEXT_MESSAGE_START", messageId: "m", role: "assistant" };`,
  `});`,
  `export const b = defineAgent(async function* (input): AgentGenerator {`,
  `  yield { type: "RUN_FINISHED", threadId: input.threadId, runId: input.runId };`,
  `});`,
];
const declared = [`export const declared = defineAgent(async function* (input): AgentGenerator {`, ...body];
const undeclared = [`export const undeclared = defineAgent(async function* (input) {`, ...body];
const lines = [`import { defineAgent, type AgentGenerator } from "../../src/server/index.js";`, ...right, ...declared, ...undeclared];
/** The 1-based line of `section`'s line `i` (0-based) in the module. */
const lineOf = (section: string[], i: number) => lines.indexOf(section[0]!) + 1 + i;

describe("defineAgent's type errors", () => {
  let reported: Reported[];
  beforeAll(() => {
    reported = check(lines);
  }, 120_000);
  const inSection = (section: string[]) => reported.filter((r) => r.line >= lineOf(section, 0) && r.line < lineOf(section, section.length));

  it("accepts right events, declared or not, with input and signal typed from context", () => {
    expect(inSection(right)).toEqual([]);
    expect(reported.length).toBe(inSection(declared).length + inSection(undeclared).length);
  });

  it("reports each wrong event of a generator declared AgentGenerator at its own yield, naming type and field", () => {
    const errors = inSection(declared);
    expect(errors.map((r) => r.line)).toEqual([lineOf(declared, 2), lineOf(declared, 3), lineOf(declared, 4)]);
    // At the field itself where the field is wrong.
    expect(errors[0]!.column).toBe(declared[2]!.indexOf("delta") + 1);
    expect(errors[0]!.message).toContain("Type 'number' is not assignable to type 'string'.");
    expect(errors[1]!.column).toBe(declared[3]!.indexOf("delta") + 1);
    // The declared types name the event (TextMessageEndEvent), where inferred ones spelt it out.
    // (The union's order is the checker's, which varies with the program.)
    expect(errors[1]!.message).toMatch(/'delta' does not exist in type '(TextMessageEndEvent \| TextMessageEndEventInput|TextMessageEndEventInput \| TextMessageEndEvent)'/);
    expect(errors[2]!.message).toContain(`Type '"RUN_FINISHD"' is not assignable to type`);
  });

  it("reports a wrong event of an undeclared generator at the function, once, naming type and field (TypeScript's limit)", () => {
    const errors = inSection(undeclared);
    expect(errors.map((r) => [r.line, r.column])).toEqual([[lineOf(undeclared, 0), undeclared[0]!.indexOf("async") + 1]]);
    const message = errors[0]!.message;
    expect(message).toMatch(/Type '\{ type: "TEXT_MESSAGE_CONTENT"; messageId: string; delta: number;[^']*' is not assignable to type/);
    expect(message).toMatch(/Types of property 'delta' are incompatible\.\n\s*Type 'number' is not assignable to type 'string'\./);
  });
});
