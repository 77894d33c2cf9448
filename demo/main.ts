/**
 * `npm start`: encodes a scripted agent run in both transports and prints the events and the
 * bytes each transport takes. (The HTTP demo server replaces this once the server lands.)
 */
import { decodeEvent, encodeFrame, encodeSSE, SSEDecoder, FrameDecoder } from "../src/index.js";
import { sampleRun } from "./sample-run.js";

const events = [...sampleRun({ threadId: "thread-1", runId: "run-1" })];
const utf8 = new TextEncoder();
let binaryBytes = 0;
let sseBytes = 0;
const frames: Uint8Array[] = [];
const sse: Uint8Array[] = [];

console.log("event                  binary bytes   SSE bytes");
for (const event of events) {
  const frame = encodeFrame(event);
  const text = utf8.encode(encodeSSE(event));
  frames.push(frame.slice());
  sse.push(text);
  binaryBytes += frame.length;
  sseBytes += text.length;
  console.log(`${event.type.padEnd(22)} ${String(frame.length).padStart(12)} ${String(text.length).padStart(11)}`);
}

// Decode both streams back and check they carry the same events.
const fromBinary = new FrameDecoder();
const fromSSE = new SSEDecoder();
const decodedBinary = frames.flatMap((f) => fromBinary.push(f));
const decodedSSE = sse.flatMap((t) => fromSSE.push(t));
fromBinary.end();
fromSSE.end();
const same = JSON.stringify(decodedBinary) === JSON.stringify(decodedSSE);

console.log("");
console.log(`${events.length} events: binary ${binaryBytes} bytes, SSE ${sseBytes} bytes (binary is ${((100 * binaryBytes) / sseBytes).toFixed(1)}% of SSE)`);
console.log(`both transports decode to the same ${decodedBinary.length} events: ${same ? "yes" : "NO"}`);
console.log("");
console.log("first frame, hex:", Buffer.from(frames[0]!).toString("hex"));
console.log("as decoded:", JSON.stringify(decodeEvent(frames[0]!, 4)));
if (!same) process.exitCode = 1;
