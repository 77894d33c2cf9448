/**
 * Reading the arguments of a tool call while they stream: a prefix of a JSON text, completed.
 *
 * @module
 */

/**
 * The value a prefix of a JSON text stands for so far: an open string is closed, open arrays and
 * objects are closed, and what cannot be completed that way (a member whose value has not begun, a
 * literal or number cut short, a trailing comma) is left out, back to the last comma or bracket.
 * What a front end shows while a tool call's arguments stream in.
 *
 * Costs one pass over `text` per cut-back (usually none).
 *
 * @param text - A prefix of a JSON text (a whole one is fine too).
 * @param fallback - What to return when nothing can be read: default `{}`.
 * @returns The value so far, or `fallback` when `text` is empty or not the start of a JSON text.
 * @throws Never.
 */
export function parsePartialJson(text: string, fallback: unknown = {}): unknown {
  for (let end = text.length; end > 0; ) {
    let s = text.slice(0, end);
    let closers = "";
    let inString = false;
    for (let i = 0; i < s.length; i++) {
      const c = s[i];
      if (inString) {
        if (c === '"') inString = false;
        else if (c === "\\" && i++ === s.length - 1) s = s.slice(0, -1); // an escape cut short goes
      } else if (c === '"') inString = true;
      else if (c === "{") closers = "}" + closers;
      else if (c === "[") closers = "]" + closers;
      else if (c === "}" || c === "]") closers = closers.slice(1);
    }
    try {
      return JSON.parse(s + (inString ? '"' : "") + closers);
    } catch {
      // Cut back before the last comma or colon, or just after the last opening bracket.
      let cut = 0;
      for (let i = end - 1; i >= 0 && cut === 0; i--) {
        const c = text[i];
        if (c === "," || c === ":") cut = i;
        else if ((c === "{" || c === "[") && i + 1 < end) cut = i + 1;
      }
      end = cut;
    }
  }
  return fallback;
}
