/**
 * The protocol version this library speaks, and how a declaration of a peer's is read (1.1,
 * `basic/versioning`): `MAJOR.MINOR`, compared number by number (1.10 is after 1.9). A peer that
 * declares a newer version, or one that cannot be read, is served all the same, with a warning.
 *
 * @module
 */
import type { ProtocolWarning } from "./warnings.js";

/** The AG-UI protocol version agui-wire speaks: what its clients and servers declare. */
export const PROTOCOL_VERSION = "1.1";

const DECLARATION = /^(\d+)\.(\d+)$/;

/**
 * The warning a peer's declared version calls for: `undefined` for this version, an older one or
 * none; `newer_version` for a later one; `uninterpretable_version` for one that is not
 * `MAJOR.MINOR`. `who` names the peer in the message ("the agent", "the client").
 *
 * @throws Never.
 */
export function versionWarning(declared: string | undefined, who: string): ProtocolWarning | undefined {
  if (declared === undefined) return undefined;
  const found = DECLARATION.exec(declared);
  if (found === null) {
    return { kind: "uninterpretable_version", message: `${who} declared protocol version ${JSON.stringify(declared.slice(0, 40))}, which agui-wire cannot interpret` };
  }
  const [, major, minor] = found;
  const [ourMajor, ourMinor] = PROTOCOL_VERSION.split(".").map(Number) as [number, number];
  const newer = Number(major) > ourMajor || (Number(major) === ourMajor && Number(minor) > ourMinor);
  if (!newer) return undefined;
  return { kind: "newer_version", message: `${who} speaks protocol ${declared}, agui-wire ${PROTOCOL_VERSION}` };
}

/**
 * A RUN_STARTED as a producer sends it: with agui-wire's protocol version when it declared none
 * (1.1, `basic/versioning`: a producer declares its own version; a proxy, what its stream speaks),
 * in the model's key order. Any other event, and a RUN_STARTED that declared one, as it is.
 *
 * @throws Never.
 */
export function declaringVersion<E>(event: E): E {
  const started = event as { type?: unknown; protocolVersion?: unknown };
  if (typeof event !== "object" || event === null || started.type !== "RUN_STARTED" || started.protocolVersion !== undefined) return event;
  const { type, threadId, runId, ...rest } = event as unknown as Record<string, unknown>;
  return { type, threadId, runId, protocolVersion: PROTOCOL_VERSION, ...rest } as E;
}
