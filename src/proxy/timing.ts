/**
 * The proxy's own time to first event, measured inside it: what `ProxyOptions.onTiming` is told.
 * Measured only when that option is given, so that a proxy nobody measures pays nothing for it.
 *
 * @module
 */

/** One run's first event through the proxy, in milliseconds of the proxy's own work and waits. */
export interface ProxyTiming {
  /** The agent's name. */
  agent: string;
  /** From the request reaching the proxy's handler to the upstream request being sent. */
  requestToUpstreamMs: number;
  /**
   * From the upstream's first chunk of body arriving to the proxy's first chunk being handed to
   * the client's response (what the proxy adds to the first event once the upstream has sent it).
   */
  firstByteToClientMs: number;
}
