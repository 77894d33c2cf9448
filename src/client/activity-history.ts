/**
 * `@ag-ui/client` 1.0's hint on a MESSAGES_SNAPSHOT saying which activity types the snapshot is
 * authoritative for: an activity message of such a type that the snapshot leaves out is deleted,
 * one of another type is kept. Our reducer honours the hint (src/client/reducer/run-state.ts);
 * these helpers read and write it as theirs do.
 *
 * @module
 */
import type { Metadata } from "./ag-ui-types.js";
import { ACTIVITY_HISTORY_METADATA } from "./reducer/index.js";

export { ACTIVITY_HISTORY_METADATA };

/** A MESSAGES_SNAPSHOT as these helpers read it: its messages and metadata. */
interface Snapshot {
  messages: readonly { role: string }[];
  metadata?: Metadata;
}

const own = (object: object, key: string) => Object.hasOwn(object, key);
const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

/**
 * The activity types a MESSAGES_SNAPSHOT declares itself authoritative for, in its
 * `metadata["@ag-ui/client"].authoritativeActivityTypes`.
 *
 * Never throws.
 *
 * @returns `undefined` when it declares nothing (the reducer then infers); `null` for every type;
 *   the listed types; `[]` (no type) when the declaration is malformed, so that a bad hint deletes
 *   nothing.
 */
export function authoritativeActivityTypes(event: { metadata?: Metadata }): string[] | null | undefined {
  const metadata = event.metadata;
  if (!metadata || !own(metadata, ACTIVITY_HISTORY_METADATA)) return undefined;
  const ours = metadata[ACTIVITY_HISTORY_METADATA];
  if (!isRecord(ours)) return [];
  if (!own(ours, "authoritativeActivityTypes")) return undefined;
  const types = ours.authoritativeActivityTypes;
  if (types === null) return null;
  return Array.isArray(types) && types.every((type) => typeof type === "string") ? (types as string[]) : [];
}

/**
 * A copy of `event` that also declares itself authoritative for `activityTypes`, for a middleware
 * that adds activity messages of its own to a snapshot: call it on the snapshot as received, before
 * changing its messages, so that what the snapshot already owned is kept. A snapshot that owned
 * every type (declared `null`, or declaring nothing while holding an activity message) keeps
 * owning every type.
 *
 * Changes nothing it is given. Never throws.
 */
export function withAuthoritativeActivityTypes<E extends Snapshot>(event: E, activityTypes: readonly string[]): E {
  const declared = authoritativeActivityTypes(event);
  const ownsEverything = declared === null || (declared === undefined && event.messages.some((message) => message.role === "activity"));
  const previous = event.metadata?.[ACTIVITY_HISTORY_METADATA];
  return {
    ...event,
    metadata: {
      ...event.metadata,
      [ACTIVITY_HISTORY_METADATA]: {
        ...(isRecord(previous) ? previous : {}),
        authoritativeActivityTypes: ownsEverything ? null : [...new Set([...(declared ?? []), ...activityTypes])],
      },
    },
  } as E;
}
