/**
 * Helpers every layer may use, with no import of their own beyond the platform: the error family
 * (`AguiWireError`, `ValidationError`), byte joining, own-property copies, abort-signal waits,
 * random tokens and their constant-time comparison, and the minimal observable protocol.
 *
 * @module
 */
export { whenAborted } from "./abort.js";
export { concatBytes } from "./bytes.js";
export { assignOwn } from "./copy.js";
export { AguiWireError, type AguiWireErrorOptions, type ErrorCode, isAguiWireError, ValidationError, type ValidationIssue } from "./errors.js";
export { base64url, randomToken, sameSecret } from "./secret.js";
export { isSubscribable, observableIterable, type ObservableIterable, type Observer, type Subscribable, subscribeTo } from "./subscribable.js";
