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
// The types are declared (src/gen/model/types.ts, generated from these schemas): inferred ones would
// make every consumer's type checker load and instantiate zod's declarations.
export type {
  PartSource,
  ContentPart,
} from "../gen/model/types.js";

/** Bytes carried inline (base64 or another text encoding named by `mimeType`). */
export const DataSourceSchema = object({
  type: z.literal("data"),
  /** The bytes, as text (base64, by convention). */
  value: z.string(),
  /** What the bytes are; required, as nothing else says. */
  mimeType: z.string(),
});
/** Bytes referenced by URL. */
export const UrlSourceSchema = object({
  type: z.literal("url"),
  /** The URL. */
  value: z.string(),
  /** What the resource is, when the producer knows. */
  mimeType: z.optional(z.string()),
});
/** Bytes already held by a model provider, named by the handle it issued. */
export const FileSourceSchema = object({
  type: z.literal("file"),
  /** The handle as the provider issued it (a file id or URI); opaque, never fetched or parsed. */
  value: z.string(),
  /** Who issued the handle, named as in TokenUsage (`openai`, `anthropic`, `google`). */
  provider: z.optional(z.string()),
  /** What the file is, when the producer knows. */
  mimeType: z.optional(z.string()),
});
/** Where a media part's bytes come from: a union on `type`. */
export const PartSourceSchema = tagged("type", [DataSourceSchema, UrlSourceSchema, FileSourceSchema]);

/** A text part. `metadata` is any JSON value but null. */
export const TextPartSchema = object({
  type: z.literal("text"),
  /** Identifies the part in its message; reserved, nothing reads it yet. */
  id: z.optional(z.string()),
  /** The text. */
  text: z.string(),
  /** Extra information. */
  metadata: z.optional(NonNullJsonSchema),
});

const mediaPart = <T extends "image" | "audio" | "video" | "document">(type: T) =>
  object({
    type: z.literal(type),
    /** Identifies the part in its message; reserved, nothing reads it yet. */
    id: z.optional(z.string()),
    /** Where the bytes come from. */
    source: PartSourceSchema,
    /** Extra information. */
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
