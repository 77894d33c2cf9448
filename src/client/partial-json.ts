/**
 * Reading the arguments of a tool call while they stream: a prefix of a JSON text, completed.
 *
 * @module
 */

const LITERALS: ReadonlyArray<readonly [string, unknown]> = [
  ["true", true],
  ["false", false],
  ["null", null],
];

/** Thrown inside the reader when the text is not a prefix of any JSON text; caught by {@link parsePartialJson}. */
class NotAPrefix extends Error {}

/** Marks "the text ended before this value began": the value is left out of its container. */
const MISSING = Symbol("missing");

/**
 * The value a prefix of a JSON text stands for so far: open strings, arrays and objects are
 * closed, a member whose value has not begun is left out, a literal cut short (`tr`) is completed,
 * a number cut short is read as far as it goes (`1.` is 1, a lone `-` is left out). What a
 * front end shows while a tool call's arguments stream in.
 *
 * @param text - A prefix of a JSON text (a whole one is fine too).
 * @returns The value so far, or `fallback` when `text` is empty, blank, or not the start of any
 *   JSON text.
 * @throws Never.
 */
export function parsePartialJson(text: string, fallback: unknown = {}): unknown {
  let i = 0;
  const n = text.length;
  const skip = (): void => {
    while (i < n && (text[i] === " " || text[i] === "\n" || text[i] === "\r" || text[i] === "\t")) i++;
  };
  const string = (): string => {
    // `i` is past the opening quote; the run of plain characters is sliced, escapes decoded.
    let out = "";
    let from = i;
    while (i < n) {
      const c = text[i]!;
      if (c === '"') {
        out += text.slice(from, i++);
        return out;
      }
      if (c === "\\") {
        out += text.slice(from, i);
        const e = text[i + 1];
        if (e === undefined) {
          // Cut inside the escape: the escape is left out.
          i = n;
          return out;
        }
        if (e === "u") {
          const hex = text.slice(i + 2, i + 6);
          if (hex.length < 4) {
            i = n;
            return out;
          }
          if (!/^[0-9a-fA-F]{4}$/.test(hex)) throw new NotAPrefix();
          out += String.fromCharCode(parseInt(hex, 16));
          i += 6;
        } else {
          const simple: Record<string, string> = { '"': '"', "\\": "\\", "/": "/", b: "\b", f: "\f", n: "\n", r: "\r", t: "\t" };
          const decoded = simple[e];
          if (decoded === undefined) throw new NotAPrefix();
          out += decoded;
          i += 2;
        }
        from = i;
        continue;
      }
      i++;
    }
    return out + text.slice(from);
  };
  const value = (): unknown => {
    skip();
    if (i >= n) return MISSING;
    const c = text[i]!;
    if (c === "{") {
      i++;
      const object: Record<string, unknown> = {};
      for (;;) {
        skip();
        if (i >= n) return object;
        if (text[i] === "}") {
          i++;
          return object;
        }
        if (text[i] === ",") {
          i++;
          skip();
        }
        if (i >= n) return object;
        if (text[i] !== '"') throw new NotAPrefix();
        i++;
        const key = string();
        skip();
        if (i >= n) return object;
        if (text[i] !== ":") throw new NotAPrefix();
        i++;
        const member = value();
        if (member === MISSING) return object;
        Object.defineProperty(object, key, { value: member, enumerable: true, writable: true, configurable: true });
      }
    }
    if (c === "[") {
      i++;
      const array: unknown[] = [];
      for (;;) {
        skip();
        if (i >= n) return array;
        if (text[i] === "]") {
          i++;
          return array;
        }
        if (text[i] === ",") i++;
        const element = value();
        if (element === MISSING) return array;
        array.push(element);
      }
    }
    if (c === '"') {
      i++;
      return string();
    }
    if (c === "-" || (c >= "0" && c <= "9")) {
      const match = /^-?(?:0|[1-9]\d*)?(?:\.\d*)?(?:[eE][+-]?\d*)?/.exec(text.slice(i, i + 400))!;
      i += match[0].length;
      // Drop a dangling `.`, `e` or sign so that what is left reads as a number.
      const digits = match[0].replace(/[eE][+-]?$/, "").replace(/\.$/, "");
      if (digits === "" || digits === "-") {
        if (i >= n) return MISSING;
        throw new NotAPrefix();
      }
      return Number(digits);
    }
    for (const [word, literal] of LITERALS) {
      const rest = text.slice(i, i + word.length);
      if (word.startsWith(rest)) {
        i += rest.length;
        if (rest.length < word.length && i < n) throw new NotAPrefix();
        return literal;
      }
    }
    throw new NotAPrefix();
  };
  try {
    const result = value();
    return result === MISSING ? fallback : result;
  } catch (error) {
    if (error instanceof NotAPrefix) return fallback;
    throw error;
  }
}
