/**
 * How a failed request is told in a `network_error`'s message. Browsers get
 * `fetch-failure.browser.ts` (package.json `browser` field): their fetch rejects with a bare
 * TypeError, with no cause to look under.
 *
 * @module
 */

/**
 * The text of a failed fetch's error with its cause's: undici's "fetch failed" hides what
 * happened (`connect ECONNREFUSED 127.0.0.1:4000`) one or two `cause`s down.
 *
 * @throws Never.
 */
export function describeFailure(error: unknown): string {
  let text = String((error as Error | undefined)?.message ?? error);
  let cause = error;
  for (let depth = 0; depth < 2 && (cause = (cause as Error | undefined)?.cause) != null; depth++) {
    // Node's AggregateError (every address of a host refused) has no message of its own.
    const found =
      cause instanceof Error
        ? cause.message || (cause as AggregateError).errors?.map((e: Error) => e?.message).join("; ") || (cause as { code?: string }).code
        : String(cause);
    if (found) text = found;
  }
  return text;
}
