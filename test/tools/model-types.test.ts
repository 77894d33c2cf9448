// src/gen/model/types.ts and schemas.ts must be what tools/gen-model-types.ts writes from the model
// (`npm run generate`), so that the declared types cannot drift from the schemas' comments and
// forms (test/model/declared-types.test.ts holds them to zod's inferred types).
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { generate } from "../../tools/gen-model-types.js";

const root = join(import.meta.dirname, "../..");

describe("src/gen/model/types.ts and schemas.ts", () => {
  // One generation: it builds a TypeScript program over src/model (seconds on a busy machine).
  it("are what tools/gen-model-types.ts generates from src/model (run `npm run generate` if not)", () => {
    const fresh = generate();
    expect(readFileSync(join(root, "src/gen/model/types.ts"), "utf8")).toBe(fresh.types);
    expect(readFileSync(join(root, "src/gen/model/schemas.ts"), "utf8")).toBe(fresh.schemas);
  }, 120_000);
});
