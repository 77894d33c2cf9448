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
