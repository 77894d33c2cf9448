/**
 * The browser bundle of the client path against its tripwire (30 KB min+gzip: the goal itself, as
 * in the bench's goal table), against about 186 KB for @ag-ui/client's HttpAgent as installed.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { CLIENT_GZIP_BUDGET, measureBundleSizes, type BundleSizes } from "../../scripts/bundle-size.js";

let sizes: BundleSizes;
beforeAll(async () => {
  sizes = await measureBundleSizes();
  const kb = (n: number) => `${(n / 1024).toFixed(1)} KB`;
  console.info(`HttpAgent min+gzip: ours ${kb(sizes.ours.gzip)}, @ag-ui/client ${kb(sizes.theirs.gzip)}; budget ${kb(CLIENT_GZIP_BUDGET)}`);
}, 60_000);

describe("client bundle size (esbuild, browser, esm, minified, gzip -9)", () => {
  // A tripwire on growth: 26.4 KB when browsers' validation left zod out (31.8 KB before).
  it("keeps the whole client path (HttpAgent with the reducer, both decoders, validation) within its budget min+gzip", () => {
    expect(sizes.ours.gzip).toBeLessThanOrEqual(CLIENT_GZIP_BUDGET);
  });

  // Browsers judge events with src/model/forms.ts (package.json `browser` field maps check.js to
  // check.browser.js); a module that reaches a zod schema again would bring about 8 KB back.
  it("bundles no package from node_modules: zod stays out of browsers", () => {
    expect(sizes.ours.packages).toStrictEqual({});
  });

  it("is smaller than @ag-ui/client's HttpAgent", () => {
    expect(sizes.ours.gzip).toBeLessThan(sizes.theirs.gzip);
    expect(sizes.ours.min).toBeLessThan(sizes.theirs.min);
    expect(Object.keys(sizes.theirs.packages).length).toBeGreaterThan(0);
  });
});
