/**
 * The numbers {@link EventVerifier} (src/protocol/verify.ts) keeps its state in: where a stream
 * is, which kind of item an event touches, and what it does to it.
 *
 * They are plain exported consts in a module that holds nothing else, not `const enum`s: a
 * bundler (esbuild) inlines such consts into their users, from dist/ as from the sources, whereas
 * tsc (with isolatedModules) emits a const enum as an object whose members are looked up at run
 * time, and esbuild inlines a module's own top-level consts only when no import precedes them.
 *
 * @module
 */

/** Where a stream is: before any run. */
export const BEFORE = 0;
/** Where a stream is: in a run. */
export const IN_RUN = 1;
/** Where a stream is: after a run that ended with RUN_FINISHED. */
export const FINISHED = 2;
/** Where a stream is: after a run that ended with RUN_ERROR (a second one in a row is no run). */
export const FAILED = 3;
/** Where a stream is, between and in runs: {@link BEFORE}, {@link IN_RUN}, {@link FINISHED}, {@link FAILED}. */
export type Phase = typeof BEFORE | typeof IN_RUN | typeof FINISHED | typeof FAILED;

// Kinds of items: the rows of the verifier's KINDS table (TEXT to SUBAGENT; 3 is reasoning spans),
// then activity messages, which only have owners.
/** Kind of item: text messages. */
export const TEXT = 0;
/** Kind of item: tool calls. */
export const TOOL = 1;
/** Kind of item: reasoning messages. */
export const REASONING_MESSAGE = 2;
/** Kind of item: steps. */
export const STEP = 4;
/** Kind of item: subagent runs. */
export const SUBAGENT = 5;
/** Kind of item: activity messages (owners only). */
export const ACTIVITY = 6;

// What an event does to its item: the index of its suffix in a row of KINDS (1 continues it).
/** An event opens its item. */
export const OPEN = 0;
/** An event closes its item. */
export const CLOSE = 2;
