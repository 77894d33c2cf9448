/**
 * Two builds of the package timed against each other in one process, rounds alternating, so that
 * a shared machine's slow spells hit both sides alike: for a change to the codecs, the numbers to
 * quote next to the suites' (which measure one build). Each workload is timed on each build in
 * every round (the order turned each round); the report gives each build's median events/s and
 * the median and interquartile range of the per-round ratio new / base, all in CPU time, over
 * several processes (see below why).
 *
 *   git worktree add ../base <commit> && cd ../base && npx tsc -p tsconfig.build.json   # its dist/
 *   npm run build && npx tsx bench/paired.ts ../base/dist dist [--rounds 15] [--processes 4] [--filter snapshot]
 *
 * Both builds must sit below a package.json with `"type": "module"`, as dist/ does: a build
 * elsewhere (in /tmp) is CommonJS to Node, and tsx then recompiles it with esbuild (adding a
 * `__name()` call to every named function), which made the same code 1.2-1.5x slower.
 *
 * @module
 */
import { execFileSync } from "node:child_process";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { quantile } from "./stats.js";
import { runTrace } from "./trace.js";
import { snapshotTrace } from "./snapshot-trace.js";
import { tokenTrace } from "./token-trace.js";
import type { AguiEventInput } from "../src/index.js";

/** What the workloads call on a build. */
interface Build {
  encodeFrame(e: AguiEventInput): Uint8Array;
  encodeSSE(e: AguiEventInput): string;
  decodeEvent(b: Uint8Array): unknown;
  encodeEvent(e: AguiEventInput): Uint8Array;
}

/** One timed workload: `run` does `events` events' work on a build. */
interface Workload {
  name: string;
  events: number;
  run(b: Build): void;
}

const args = process.argv.slice(2);
const flag = (name: string) => {
  const i = args.indexOf(name);
  return i < 0 ? undefined : args.splice(i, 2)[1];
};
const rounds = Number(flag("--rounds") ?? 15);
const processes = Number(flag("--processes") ?? 4);
const filter = flag("--filter");
const childAt = args.indexOf("--child");
const child = childAt >= 0;
if (child) args.splice(childAt, 1);
const [baseDir, newDir] = args;
if (!baseDir || !newDir) throw new Error("usage: tsx bench/paired.ts <base build dir> <new build dir> [--rounds n] [--filter word]");

const load = async (dir: string): Promise<Build> => (await import(pathToFileURL(resolve(dir, "index.js")).href)) as Build;
const builds = { base: await load(baseDir), new: await load(newDir) };

let sink = 0;
const encodeFrames = (events: AguiEventInput[]) => (b: Build) => {
  for (const e of events) sink += b.encodeFrame(e).length;
};
const encodeSSEs = (events: AguiEventInput[]) => (b: Build) => {
  for (const e of events) sink += b.encodeSSE(e).length;
};
const decodes = (events: AguiEventInput[]) => {
  // The messages, encoded once by the base build: both decode the same bytes.
  const messages = events.map((e) => builds.base.encodeEvent(e).slice());
  return (b: Build) => {
    for (const m of messages) sink += b.decodeEvent(m) === undefined ? 0 : 1;
  };
};
/** `n` copies of the largest event of `type` in `trace`. */
const largest = (trace: AguiEventInput[], type: string, n: number): AguiEventInput[] => {
  const of = trace.filter((e) => e.type === type);
  const big = of.reduce((a, e) => (JSON.stringify(e).length > JSON.stringify(a).length ? e : a), of[0]!);
  return Array.from({ length: n }, () => big);
};

const mixed = runTrace();
const token = tokenTrace(1000);
const snapshot = snapshotTrace(1000);
const oneToken = token.filter((e) => e.type === "TEXT_MESSAGE_CONTENT").slice(0, 500);
const inputs: [string, AguiEventInput[]][] = [
  ["mixed trace", mixed],
  ["token trace", token],
  ["snapshot trace", snapshot],
  ["one-token TEXT_MESSAGE_CONTENT", oneToken],
  ["STATE_SNAPSHOT mixed (largest)", largest(mixed, "STATE_SNAPSHOT", 50)],
  ["STATE_DELTA mixed", largest(mixed, "STATE_DELTA", 200)],
  ["STATE_SNAPSHOT snapshot (largest)", largest(snapshot, "STATE_SNAPSHOT", 20)],
  ["STATE_DELTA snapshot (largest)", largest(snapshot, "STATE_DELTA", 200)],
  ["ACTIVITY_SNAPSHOT snapshot", largest(snapshot, "ACTIVITY_SNAPSHOT", 200)],
  ["CUSTOM snapshot", largest(snapshot, "CUSTOM", 200)],
  ["MESSAGES_SNAPSHOT token (largest)", largest(token, "MESSAGES_SNAPSHOT", 20)],
];
const workloads: Workload[] = inputs.flatMap(([name, events]) => [
  { name: `encodeFrame ${name}`, events: events.length, run: encodeFrames(events) },
  { name: `encodeSSE ${name}`, events: events.length, run: encodeSSEs(events) },
  { name: `decodeEvent ${name}`, events: events.length, run: decodes(events) },
]).filter((w) => !filter || w.name.includes(filter));

/**
 * Ms of this process's CPU for `reps` runs of `w` on `b`. CPU time rather than the wall clock:
 * on a machine shared with other work the wall clock also counts the time this process waited
 * for a core, which says nothing about the code.
 */
function time(w: Workload, b: Build, reps: number): number {
  const t0 = process.cpuUsage();
  for (let i = 0; i < reps; i++) w.run(b);
  const t = process.cpuUsage(t0);
  return (t.user + t.system) / 1000;
}

/** One process's rounds: events/s of each build and the per-round ratio, per workload. */
type Rounds = Record<string, { base: number[]; new: number[]; ratio: number[] }>;

/** Times every workload for `rounds` rounds in this process. */
function measure(): Rounds {
  const results: Rounds = {};
  for (const w of workloads) {
    // About 20 ms a sample, sized on the base build after a warm-up of both.
    for (let i = 0; i < 3; i++) (time(w, builds.base, 1), time(w, builds.new, 1));
    const reps = Math.max(1, Math.round(20 / Math.max(0.01, time(w, builds.base, 1))));
    const r = { base: [] as number[], new: [] as number[], ratio: [] as number[] };
    for (let round = 0; round < rounds; round++) {
      const order = round % 2 === 0 ? (["base", "new"] as const) : (["new", "base"] as const);
      const ms: Record<string, number> = {};
      for (const side of order) ms[side] = time(w, builds[side], reps);
      r.base.push((w.events * reps * 1000) / ms.base!);
      r.new.push((w.events * reps * 1000) / ms.new!);
      r.ratio.push(ms.base! / ms.new!);
    }
    results[w.name] = r;
  }
  return results;
}

if (child) {
  process.stdout.write(JSON.stringify(measure()));
} else {
  // Each process loads the two builds in turn, the order swapped every other process: in one
  // process two identical builds can differ by up to 20% on a workload (where V8 put their code,
  // which one warmed up the shared objects' shapes), the same way in every round, which
  // alternating rounds cannot cancel; a median over processes can.
  const per: Rounds[] = [];
  for (let i = 0; i < processes; i++) {
    const swap = i % 2 === 1;
    const argv = [...process.execArgv, process.argv[1]!, "--child", "--rounds", String(rounds), ...(filter ? ["--filter", filter] : []), ...(swap ? [newDir, baseDir] : [baseDir, newDir])];
    const out = execFileSync(process.execPath, argv, { encoding: "utf8", maxBuffer: 64 * 1024 * 1024 });
    const got = JSON.parse(out) as Rounds;
    if (swap) for (const r of Object.values(got)) [r.base, r.new, r.ratio] = [r.new, r.base, r.ratio.map((x) => 1 / x)];
    per.push(got);
    console.error(`process ${i + 1}/${processes} done`);
  }
  const med = (xs: number[]) => quantile(xs, 0.5);
  const k = (x: number) => (x >= 1e6 ? `${(x / 1e6).toFixed(2)} M` : `${(x / 1e3).toFixed(1)} k`);
  const rows: string[][] = [["workload", "base ev/s", "new ev/s", "new/base", "IQR", "per process", "new frame/SSE"]];
  const pooled = (name: string, side: "base" | "new" | "ratio") => per.flatMap((p) => p[name]![side]);
  for (const name of Object.keys(per[0]!)) {
    const ratios = pooled(name, "ratio");
    let vsSse = "";
    if (name.startsWith("encodeFrame ")) {
      const sse = `encodeSSE ${name.slice("encodeFrame ".length)}`;
      if (per[0]![sse]) vsSse = `${(med(pooled(name, "new")) / med(pooled(sse, "new"))).toFixed(2)}x (base ${(med(pooled(name, "base")) / med(pooled(sse, "base"))).toFixed(2)}x)`;
    }
    rows.push([
      name,
      k(med(pooled(name, "base"))),
      k(med(pooled(name, "new"))),
      `${med(ratios).toFixed(3)}x`,
      `${quantile(ratios, 0.25).toFixed(3)}-${quantile(ratios, 0.75).toFixed(3)}`,
      per.map((p) => med(p[name]!.ratio).toFixed(2)).join(" "),
      vsSse,
    ]);
  }
  const widths = rows[0]!.map((_, c) => Math.max(...rows.map((row) => row[c]!.length)));
  for (const row of rows) console.log(row.map((cell, c) => (c === 0 ? cell.padEnd(widths[c]!) : cell.padStart(widths[c]!))).join("  "));
  console.log(`${processes} processes (load order swapped every other one) x ${rounds} rounds, alternating; new/base = base CPU ms / new CPU ms per round, median and IQR over all rounds (above 1: new is faster); per process: each one's median. sink ${sink % 10}`);
}
