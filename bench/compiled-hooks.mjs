/**
 * The resolve hook of bench/compiled.mjs: `<root>/src/<path>.ts` → `<root>/dist/<path>.js`, or
 * another build's `<path>.js` when `AGUI_BENCH_DIST` names its folder (an older commit's build, to
 * measure a suite on it in turn with the current one; no freshness check then). That folder must
 * sit below a package.json with `"type": "module"`.
 */
import { statSync } from "node:fs";
import { resolve as resolvePath } from "node:path";
import { pathToFileURL } from "node:url";

const root = new URL("../", import.meta.url).href;
const src = `${root}src/`;
const other = process.env.AGUI_BENCH_DIST;
const dist = other ? `${pathToFileURL(resolvePath(other)).href}/` : `${root}dist/`;

/** The mtime of a file URL in ms, or undefined when it does not exist. */
function mtimeOf(url) {
  try {
    return statSync(new URL(url)).mtimeMs;
  } catch {
    return undefined;
  }
}

export async function resolve(specifier, context, nextResolve) {
  const resolved = await nextResolve(specifier, context);
  if (!resolved.url.startsWith(src) || !resolved.url.endsWith(".ts")) return resolved;
  const built = `${dist}${resolved.url.slice(src.length, -3)}.js`;
  const builtAt = mtimeOf(built);
  if (builtAt === undefined) {
    throw new Error(`bench/compiled.mjs: expected ${built} (the build of ${resolved.url}), found none: run \`npm run build\` first`);
  }
  const sourceAt = other ? undefined : mtimeOf(resolved.url);
  if (sourceAt !== undefined && sourceAt > builtAt) {
    throw new Error(`bench/compiled.mjs: ${resolved.url} is newer than its build ${built}: run \`npm run build\` first`);
  }
  return { ...resolved, url: built, format: "module" };
}
