/**
 * The declared type of the model's public schemas: what a program can do with one (parse, and
 * safely parse) and the types it gives, without zod's generic types.
 *
 * @module
 */
import type { ValidationIssue } from "../util/index.js";

/** What {@link Schema.safeParse} returns: the parsed value, or why the value was refused. */
export type SafeParseResult<Output> =
  | { readonly success: true; readonly data: Output; readonly error?: never }
  | {
      readonly success: false;
      readonly data?: never;
      /** zod's error: its issues, and a message listing them. */
      readonly error: { readonly issues: ValidationIssue[]; readonly message: string };
    };

/**
 * A schema of the model, as the published declarations type it. At run time each is a zod/mini
 * schema (`zod` 4), whose other members remain; they are left out of its type because naming
 * zod's types here would make every consumer's type checker load and instantiate zod's
 * declarations (see tools/gen-model-types.ts). `parseEvent` and `parseRunAgentInput` give
 * agui-wire's own errors.
 *
 * @typeParam Output - What parsing returns.
 * @typeParam Input - What parsing accepts as valid (defaults optional).
 */
export interface Schema<Output, Input = Output> {
  /**
   * Returns `data` validated (unknown keys dropped, defaults filled in).
   *
   * @throws zod's `$ZodError` (`issues`, `message`) when `data` does not match.
   */
  parse(data: unknown): Output;
  /** Validates `data` without throwing. */
  safeParse(data: unknown): SafeParseResult<Output>;
  /**
   * {@link Schema.parse}, as a promise.
   *
   * @throws zod's `$ZodError` (rejects with it) when `data` does not match.
   */
  parseAsync(data: unknown): Promise<Output>;
  /** {@link Schema.safeParse}, as a promise. */
  safeParseAsync(data: unknown): Promise<SafeParseResult<Output>>;
  /**
   * The Standard Schema (v1, standardschema.dev) interface zod schemas implement, so libraries that
   * take any Standard Schema take these; `types` is for inference only, absent at run time.
   */
  readonly "~standard": {
    readonly version: 1;
    readonly vendor: string;
    readonly validate: (value: unknown) => StandardResult<Output> | Promise<StandardResult<Output>>;
    readonly types?: { readonly input: Input; readonly output: Output } | undefined;
  };
}

/** A Standard Schema (v1) validation's result: the value, or the issues. */
export type StandardResult<Output> =
  | { readonly value: Output; readonly issues?: undefined }
  | { readonly issues: ReadonlyArray<{ readonly message: string; readonly path?: ReadonlyArray<PropertyKey | { readonly key: PropertyKey }> | undefined }> };

/** The schema of an enumeration: a {@link Schema} that lists its values. */
export interface EnumSchema<T extends string> extends Schema<T> {
  /** The values, in their order. */
  readonly options: T[];
}
