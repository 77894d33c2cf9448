/**
 * What the handlers check when they are made, and what the server entry may import.
 */
import { build } from "esbuild";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it, vi } from "vitest";
import { createAgentHandler, createNodeHandler, DEFAULT_KEEP_ALIVE_MS, DEFAULT_MAX_BODY_BYTES } from "../../src/server/index.js";
import { BINARY, HANDLERS, post, runInput } from "./helpers.js";

const MAKERS = [
  ["createAgentHandler", createAgentHandler],
  ["createNodeHandler", createNodeHandler],
] as const;

describe.each(MAKERS)("%s", (_, make) => {
  const agent = () => [];

  it.each([42, null, "agent", {}, { run: "no" }])("refuses %j as an agent with a TypeError, at once", (bad) => {
    expect(() => make(bad as never)).toThrow(TypeError);
  });

  it("accepts a function agent and an object agent", () => {
    expect(typeof make(agent)).toBe("function");
    expect(typeof make({ run: agent })).toBe("function");
  });

  it.each([0, -1, 1.5, Number.NaN, "1024"])("refuses maxBodyBytes %j with a RangeError", (maxBodyBytes) => {
    expect(() => make(agent, { maxBodyBytes: maxBodyBytes as number })).toThrow(RangeError);
  });

  it.each([-1, Number.NaN, "15"])("refuses keepAliveMs %j with a RangeError", (keepAliveMs) => {
    expect(() => make(agent, { keepAliveMs: keepAliveMs as number })).toThrow(RangeError);
  });

  it("refuses an onError that is not a function with a TypeError", () => {
    expect(() => make(agent, { onError: "log" as never })).toThrow(TypeError);
  });

  it("accepts Infinity for maxBodyBytes, and 0 or Infinity for keepAliveMs", () => {
    expect(() => make(agent, { maxBodyBytes: Infinity, keepAliveMs: 0 })).not.toThrow();
    expect(() => make(agent, { keepAliveMs: Infinity })).not.toThrow();
  });
});

it("defaults to a 1 MiB body and 15 s keep-alive", () => {
  expect(DEFAULT_MAX_BODY_BYTES).toBe(1024 * 1024);
  expect(DEFAULT_KEEP_ALIVE_MS).toBe(15_000);
});

describe.each(HANDLERS)("$name without onError", ({ serve }) => {
  afterEach(() => vi.restoreAllMocks());

  it("logs the agent's error with console.error", async () => {
    const log = vi.spyOn(console, "error").mockImplementation(() => {});
    const failure = new Error("boom");
    const served = await serve(() => {
      throw failure;
    });
    try {
      const response = await post(served.url, runInput(), BINARY);
      await response.arrayBuffer();
      expect(log).toHaveBeenCalledWith(expect.stringContaining("agui-wire"), failure);
    } finally {
      await served.close();
    }
  });
});

it("the server entry imports nothing from node:* (it bundles for the browser)", async () => {
  const result = await build({
    entryPoints: [fileURLToPath(new URL("../../src/server/index.ts", import.meta.url))],
    bundle: true,
    platform: "browser",
    format: "esm",
    write: false,
    logLevel: "silent",
  });
  expect(result.errors).toEqual([]);
  expect(result.outputFiles[0]!.text).not.toMatch(/from\s*["']node:|require\(["']node:/);
});
