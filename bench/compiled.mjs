/**
 * `node --import ./bench/compiled.mjs`: runs the benchmarks on the compiled package, as npm ships
 * it. Every import that resolves to a module of `src/` (from the suites, and from the test
 * fixtures they share) loads its `dist/` build instead, so that one module graph is measured, the
 * one users run.
 *
 * Why: tsx, which runs the suites' own TypeScript, compiles with esbuild's `keepNames`, which
 * wraps every named function expression in a `__name(fn, "…")` call at the point it is created
 * (an `Object.defineProperty` that also gives the function a property array). Per run that is a
 * few dozen calls and, per open stream, about 2.5 KB of heap that the tsc build does not have.
 *
 * The build must be current: `npm run bench` runs `npm run build` first, and a module whose
 * source is newer than its build stops the run with an error saying so.
 */
import { register } from "node:module";

process.env.AGUI_BENCH_COMPILED = "1";
register("./compiled-hooks.mjs", import.meta.url);
