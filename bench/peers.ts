/**
 * The implementations we measure ourselves against, set up once: the @ag-ui packages (the
 * reference), protobuf-es on our generated schema, and protobufjs on our .proto files.
 */
import { parseProtoStream, parseSSEStream } from "@ag-ui/client";
import { EventSchemas } from "@ag-ui/core/schemas";
import { EventEncoder } from "@ag-ui/encoder";
import * as agProto from "@ag-ui/proto";
import { fileURLToPath } from "node:url";
import protobuf from "protobufjs";
import { Subject, type Observable } from "rxjs";
import { BINARY_MEDIA_TYPE, type AguiEventInput } from "../src/index.js";
import { asyncChunks } from "./trace.js";

export { fromBinary, toBinary } from "@bufbuild/protobuf";
export { EventSchema as EventMessageSchema, type Event as EventMessage } from "../src/gen/agui/wire/v1/events_pb.js";

/**
 * The @ag-ui packages warn on console for things they tolerate (and @ag-ui/proto warns on every
 * encode it cannot validate); the warnings would flood the report and time console I/O. Their
 * own switch is an environment variable; the filter catches any that ignore it.
 */
export function silencePeerWarnings(): void {
  process.env.SUPPRESS_TRANSFORMATION_WARNINGS = "true";
  const warn = console.warn.bind(console);
  console.warn = (...args: unknown[]) => {
    if (typeof args[0] === "string" && args[0].startsWith("[ag-ui]")) return;
    warn(...args);
  };
}

type TheirEvent = Parameters<typeof agProto.encode>[0];

/** `@ag-ui/encoder` set up for the binary transport, as a server using it would. */
const agEncoder = new EventEncoder({ accept: BINARY_MEDIA_TYPE });

/** `@ag-ui/encoder`'s `encodeBinary`: validates, then a length-prefixed frame. */
export const agEncodeBinary = (event: AguiEventInput): Uint8Array => agEncoder.encodeBinary(event as TheirEvent);
/** `@ag-ui/proto`'s `encode`: validates, then one message, no prefix. */
export const agProtoEncode = (event: AguiEventInput): Uint8Array => agProto.encode(event as TheirEvent);
/** `@ag-ui/proto`'s `decode`: one message to an event (no schema validation). */
export const agProtoDecode = (bytes: Uint8Array): unknown => agProto.decode(bytes);

/**
 * protobufjs's reflection-based (runtime code-generated) `Event` type, loaded from our .proto
 * files. `google/protobuf/struct.proto` is not on disk: protobufjs ships the well-known types in
 * `protobuf.common` and serves any import path ending in `google/protobuf/*.proto` from there.
 */
export function loadProtobufjsEvent(): protobuf.Type {
  const protoDir = fileURLToPath(new URL("../proto/", import.meta.url));
  const root = new protobuf.Root();
  root.resolvePath = (_origin, target) => (target.includes("google/protobuf/") ? target : protoDir + target);
  root.loadSync("agui/wire/v1/events.proto");
  return root.lookupType("agui.wire.v1.Event");
}

/** What @ag-ui/client's stream parsers take: its HttpEvent stream (the type is not exported). */
type HttpEvent = Parameters<typeof parseProtoStream>[0] extends Observable<infer T> ? T : never;

/**
 * Decodes a whole stream with @ag-ui/client the way its HttpAgent does: byte chunks go in as
 * `{ type: "data", data }` events, one await per chunk as from a response body, through
 * `parseProtoStream` (binary) or `parseSSEStream` followed by `EventSchemas.parse` on every event
 * (SSE; the SSE parser itself only runs JSON.parse). Resolves to the number of events.
 */
export async function agDecodeStream(chunks: readonly Uint8Array[], transport: "binary" | "sse"): Promise<number> {
  const source = new Subject<HttpEvent>();
  let count = 0;
  const done = new Promise<void>((resolve, reject) => {
    const events$ = transport === "binary" ? parseProtoStream(source) : parseSSEStream(source);
    events$.subscribe({
      next: (event: unknown) => {
        if (transport === "sse") EventSchemas.parse(event);
        count++;
      },
      error: reject,
      complete: resolve,
    });
  });
  for await (const data of asyncChunks(chunks)) source.next({ type: "data", data } as HttpEvent);
  source.complete();
  await done;
  return count;
}
