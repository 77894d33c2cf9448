// docs/events.md must be what tools/gen-event-docs.ts writes from the model (`npm run generate`),
// so that the field reference cannot drift from the schemas and their comments.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { generate } from "../../tools/gen-event-docs.js";

const root = join(import.meta.dirname, "../..");

describe("docs/events.md", () => {
  let fresh = "";
  // One generation for all the checks: it builds a TypeScript program over src/model (seconds).
  beforeAll(() => {
    fresh = generate();
  }, 120_000);

  it("is what tools/gen-event-docs.ts generates from src/model (run `npm run generate` if not)", () => {
    expect(readFileSync(join(root, "docs/events.md"), "utf8")).toBe(fresh);
  });

  it("has a section for every event type, and links that land on headings", () => {
    const headings = new Set([...fresh.matchAll(/^#{2,3} (.+)$/gm)].map((m) => m[1]!.toLowerCase().replace(/[^\p{L}\p{N}\s_-]/gu, "").replace(/\s/g, "-")));
    for (const type of ["RUN_STARTED", "TEXT_MESSAGE_CONTENT", "REASONING_ENCRYPTED_VALUE", "SUBAGENT_ERROR", "CUSTOM"]) {
      expect(headings, type).toContain(type.toLowerCase());
    }
    expect(fresh.match(/^### [A-Z_]+$/gm)).toHaveLength(31);
    for (const [, anchor] of fresh.matchAll(/\]\(#([^)]+)\)/g)) expect(headings, anchor).toContain(anchor);
  });
});
