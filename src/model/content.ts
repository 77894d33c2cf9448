/**
 * Content parts: the pieces of a multimodal user message or tool result (text, image, audio,
 * video, document), and where a media part's bytes come from.
 *
 * @module
 */
import * as z from "zod/mini";
import { object } from "./object.js";
import { tagged } from "./tagged.js";
import { NonNullJsonSchema } from "./json.js";

/** Bytes carried inline (base64 or another text encoding named by `mimeType`). */
export const DataSourceSchema = object({
  type: z.literal("data"),
  value: z.string(),
  mimeType: z.string(),
});
/** Bytes referenced by URL. */
export const UrlSourceSchema = object({
  type: z.literal("url"),
  value: z.string(),
  mimeType: z.optional(z.string()),
});
/** Bytes already held by a model provider, named by the handle it issued. */
export const FileSourceSchema = object({
  type: z.literal("file"),
  value: z.string(),
  provider: z.optional(z.string()),
  mimeType: z.optional(z.string()),
});
/** Where a media part's bytes come from: a union on `type`. */
export const PartSourceSchema = tagged("type", [DataSourceSchema, UrlSourceSchema, FileSourceSchema]);
/** Where a media part's bytes come from. */
export type PartSource = z.infer<typeof PartSourceSchema>;

/** A text part. `metadata` is any JSON value but null. */
export const TextPartSchema = object({
  type: z.literal("text"),
  id: z.optional(z.string()),
  text: z.string(),
  metadata: z.optional(NonNullJsonSchema),
});

const mediaPart = <T extends "image" | "audio" | "video" | "document">(type: T) =>
  object({
    type: z.literal(type),
    id: z.optional(z.string()),
    source: PartSourceSchema,
    metadata: z.optional(NonNullJsonSchema),
  });

/** An image part. */
export const ImagePartSchema = mediaPart("image");
/** An audio part. */
export const AudioPartSchema = mediaPart("audio");
/** A video part. */
export const VideoPartSchema = mediaPart("video");
/** A document part. */
export const DocumentPartSchema = mediaPart("document");

/**
 * The type of {@link ContentPartSchema}, as a named interface, so that the published declarations
 * name it where messages and tool results hold parts instead of spelling the five parts out again.
 */
export interface ContentPartUnionSchema
  extends z.ZodMiniDiscriminatedUnion<
    [typeof TextPartSchema, typeof ImagePartSchema, typeof AudioPartSchema, typeof VideoPartSchema, typeof DocumentPartSchema],
    "type"
  > {}

/** One part of a message body: a union on `type`. */
export const ContentPartSchema: ContentPartUnionSchema = tagged("type", [
  TextPartSchema,
  ImagePartSchema,
  AudioPartSchema,
  VideoPartSchema,
  DocumentPartSchema,
]);
/** One part of a message body. */
export type ContentPart = z.infer<typeof ContentPartSchema>;
