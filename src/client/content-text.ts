/**
 * Text-or-parts content (a user or tool message's `content`) for a reader that can hold only text:
 * `@ag-ui/core` 1.0's `contentToText` and `contentHasMedia`.
 *
 * @module
 */
import type { ContentPart } from "../model/index.js";

/**
 * The text of string-or-parts content: the string itself, or the text parts joined in order with
 * nothing between them; media parts are dropped, with nothing put in their place (the downgrade
 * AG-UI allows for a peer that predates parts). `undefined` gives "".
 *
 * Never throws for content of the model's shape. Check {@link contentHasMedia} first to warn
 * about what is dropped.
 */
export function contentToText(content: string | ContentPart[] | undefined): string {
  if (typeof content === "string") return content;
  if (content === undefined) return "";
  let text = "";
  for (const part of content) if (part.type === "text") text += part.text;
  return text;
}

/** Whether string-or-parts content holds any part that is not text (what {@link contentToText} would drop). Never throws. */
export function contentHasMedia(content: string | ContentPart[] | undefined): boolean {
  return Array.isArray(content) && content.some((part) => part.type !== "text");
}
