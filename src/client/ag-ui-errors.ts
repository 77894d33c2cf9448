/**
 * `@ag-ui/core` 1.0's two error classes, for code that throws or tests for them.
 *
 * agui-wire's own errors are `AguiWireError`s (with a `code`), not `AGUIError`s: a `catch` that
 * tests `instanceof AGUIError` does not catch what our agents throw (see
 * docs/ag-ui-differences.md).
 *
 * @module
 */

/** The base class of `@ag-ui/core`'s errors: an `Error` with a message (its `name` stays "Error", as theirs). */
export class AGUIError extends Error {
  /** @param message - What went wrong. */
  constructor(message: string) {
    super(message);
  }
}

/**
 * What an agent without a way to reattach to a thread throws from `connect`, as theirs: the message
 * is theirs word for word, so code matching on it keeps working.
 */
export class AGUIConnectNotImplementedError extends AGUIError {
  constructor() {
    super("Connect not implemented. This method is not supported by the current agent.");
  }
}
