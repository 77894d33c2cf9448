import * as proto from "@ag-ui/proto";
import { isDeepStrictEqual } from "node:util";
import { CORPUS, mixedTrace } from "../fixtures/corpus.js";
import { decodeEvent, encodeEvent, parseEvent } from "../../src/index.js";
const hex = (b: Uint8Array) => Buffer.from(b).toString("hex");
const origWarn = console.warn; const warns: string[] = []; console.warn = (...a: unknown[]) => { warns.push(a.join(" ")); };
for (const { name, event } of CORPUS) {
  warns.length = 0;
  const p = parseEvent(event);
  const ours = encodeEvent(event).slice();
  let rt = false; try { rt = isDeepStrictEqual(decodeEvent(ours), p); } catch (e) { console.log("RT ERR", name, (e as Error).message); }
  let theirs: Uint8Array | undefined; let te = "";
  try { theirs = proto.encode(event as never); } catch (e) { te = (e as Error).message; }
  let dec: unknown; let de = "";
  try { dec = proto.decode(ours); } catch (e) { de = (e as Error).message; }
  const same = theirs ? Buffer.compare(Buffer.from(theirs), Buffer.from(ours)) === 0 : false;
  const decEq = isDeepStrictEqual(dec, p);
  if (!rt || !same || !decEq || te || de || warns.length) {
    console.log(name, { rt, same, decEq, te, de, warns: warns.map(w => w.slice(0, 200)) });
    if (!decEq && JSON.stringify(dec)?.length < 2000) console.log("  theirs decoded:", JSON.stringify(dec), "\n  expected:", JSON.stringify(p));
    if (!same && theirs && ours.length < 300) console.log("  ours:", hex(ours), "\n  their:", hex(theirs));
  }
}
console.warn = origWarn;
const t = mixedTrace(1000); console.log("trace", t.length, t.every(e => { parseEvent(e); return true; }));
for (const n of [1, 10, 33, 34, 100, 500, 1000, 10000]) console.log(n, mixedTrace(n).length);
