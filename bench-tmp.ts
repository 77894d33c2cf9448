import * as proto from "@ag-ui/proto";
import { EventEncoder } from "@ag-ui/encoder";
import { encodeFrame, decodeEvent, parseEvent, encodeEvent } from "./src/index.ts";
const enc = new EventEncoder({ accept: "application/vnd.ag-ui.event+proto" });
const evs: any[] = [
  { type: "TEXT_MESSAGE_CONTENT", messageId: "msg_123", delta: "hello " },
  { type: "TOOL_CALL_ARGS", toolCallId: "tc_1", delta: "{\"a\":" },
  { type: "STATE_SNAPSHOT", snapshot: { a: [1, 2, 3], b: { c: "x", d: true, e: null }, f: "long string here" } },
  { type: "RUN_STARTED", threadId: "t1", runId: "r1", timestamp: 1732200000000 },
];
const run = (name: string, fn: () => unknown) => { for (let i = 0; i < 5000; i++) fn(); const n = 200000; const t = performance.now(); for (let i = 0; i < n; i++) fn(); const r = n / (performance.now() - t) / 1000; console.log(name.padEnd(40), r.toFixed(3), "M/s"); return r; };
for (const ev of evs) {
  const bytes = proto.encode(ev);
  const a = run(ev.type + " ours encodeFrame", () => encodeFrame(ev));
  const b = run(ev.type + " theirs encodeBinary", () => enc.encodeBinary(ev));
  run(ev.type + " ours SSE", () => "data: " + JSON.stringify(parseEvent(ev)) + "\n\n");
  const c = run(ev.type + " ours decode", () => decodeEvent(bytes));
  const d = run(ev.type + " theirs decode", () => proto.decode(bytes));
  console.log("   ratios enc", (a / b).toFixed(1), "dec", (c / d).toFixed(1));
}
