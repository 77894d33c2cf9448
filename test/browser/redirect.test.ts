/**
 * HttpAgent's redirect policy in headless Chromium, where fetch hides a redirect's target from
 * the page (`redirect: "manual"` gives an opaque answer): the default `same-origin` cannot check
 * the origin there, so it refuses every redirect with an error that says so; `follow` lets the
 * browser follow it.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createNodeHandler } from "../../src/server/index.js";
import { recordingSampleAgent } from "../client/helpers.js";
import { available, openAgentPage, type AgentPage } from "./chromium.js";

if (!available) console.warn("test/browser/redirect.test.ts skipped: /usr/bin/chromium is missing (install it with: apt-get install -y chromium)");

describe.skipIf(!available)("HttpAgent's redirects in headless Chromium", () => {
  const sample = recordingSampleAgent();
  let page: AgentPage;

  beforeAll(async () => {
    page = await openAgentPage({
      "/agent": createNodeHandler(sample.agent),
      "/moved": (_req, res) => res.writeHead(307, { location: "/agent" }).end(),
    });
  });

  afterAll(async () => {
    await page?.close();
  });

  it("same-origin (the default) refuses a redirect it cannot see, saying why; the agent never runs", async () => {
    const before = sample.inputs.length;
    const outcome = await page.run({ url: "/moved" });
    expect(outcome).toMatchObject({ types: [], completed: false, error: { name: "HttpStatusError", code: "http_status", status: 0 } });
    expect(outcome.error!.message).toContain("redirects where the browser does not say, so its origin is unknown");
    expect(outcome.error!.message).toContain('(redirect: "same-origin"; "follow" allows it)');
    expect(sample.inputs).toHaveLength(before);
  });

  it('"follow" lets the browser follow it', async () => {
    const before = sample.inputs.length;
    const outcome = await page.run({ url: "/moved", redirect: "follow" });
    expect(outcome.error).toBeUndefined();
    expect(outcome.completed).toBe(true);
    expect(outcome.types).toEqual(sample.sent.at(-1)!.map((e) => e.type));
    expect(sample.inputs).toHaveLength(before + 1);
  });
});
