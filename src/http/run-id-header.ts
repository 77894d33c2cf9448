/**
 * The response header of a resumable run, which the server's handlers send and the client reads.
 *
 * @module
 */

/**
 * The response header by which a server with a run store says a run can be reattached to
 * (`GET ?runId=`, `Last-Event-ID`) and cancelled (`DELETE ?runId=`), and names it: `AG-UI-Run-Id:
 * <runId>`.
 */
export const RUN_ID_HEADER = "AG-UI-Run-Id";

/** The longest run id a resumable run may have, in characters: it travels in a header and in every reattach's URL. */
export const MAX_RUN_ID_LENGTH = 256;

/**
 * Why `runId` cannot name a resumable run, or `undefined` when it can. The `AG-UI-Run-Id` header
 * carries a run id unchanged only when it is 1 to {@link MAX_RUN_ID_LENGTH} characters of visible
 * ASCII (`!` to `~`): a header cannot hold CR, LF or NUL at all, and any other character arrives
 * changed (fetch reads a header's bytes as Latin-1, so UTF-8 text comes back mangled and a client
 * would reattach to another id). The message names the first problem without echoing the id.
 *
 * @throws Never.
 */
export function runIdProblem(runId: string): string | undefined {
  const expected = `expected a runId of 1 to ${MAX_RUN_ID_LENGTH} visible ASCII characters (! to ~)`;
  if (runId.length === 0) return `${expected}, found an empty one`;
  if (runId.length > MAX_RUN_ID_LENGTH) return `${expected}, found ${runId.length} characters`;
  for (let i = 0; i < runId.length; i++) {
    const c = runId.charCodeAt(i);
    if (c < 0x21 || c > 0x7e) return `${expected}, found U+${c.toString(16).toUpperCase().padStart(4, "0")} at index ${i}`;
  }
  return undefined;
}
