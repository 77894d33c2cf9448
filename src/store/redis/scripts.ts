/**
 * The Lua scripts through which every change to a run goes (one round trip each, atomic, so that a
 * stale writer, a reader that notices a dead owner and a cancel never interleave halfway), and the
 * RUN_ERROR frames they write when a run ends without its writer.
 *
 * @module
 */
import type { Redis } from "ioredis";
import { encodeFrame } from "../../binary/index.js";
import { EventType } from "../../model/event-type.js";

// Scripts. KEYS are always meta, events, lease, seen. `finish` ends a live run: an optional last event,
// then the end entry, then the keys' expiry switches from the live one to ttlMs.
const FINISH = `
local function finish(count, frame, by, ttl, maxlen)
  if frame then
    count = count + 1
    redis.call('XADD', KEYS[2], 'MAXLEN', maxlen, '0-' .. count, 'f', frame)
  end
  redis.call('XADD', KEYS[2], 'MAXLEN', maxlen, '0-' .. (count + 1), 'end', by)
  redis.call('HSET', KEYS[1], 'state', 'ended', 'count', count, 'endedBy', by)
  redis.call('DEL', KEYS[3], KEYS[4])
  redis.call('PEXPIRE', KEYS[1], ttl)
  redis.call('PEXPIRE', KEYS[2], ttl)
  return count
end
`;

/**
 * ARGV: token, leaseMs, liveTtl, access (the resume token's digest), detachedMs (0: never). 1 when
 * created, 0 when the id is taken. `owner` is the writing store; `access` guards the run.
 */
const CREATE = `
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('DEL', KEYS[2])
redis.call('HSET', KEYS[1], 'state', 'live', 'count', 0, 'owner', ARGV[1], 'access', ARGV[4])
redis.call('SET', KEYS[3], ARGV[1], 'PX', ARGV[2])
if ARGV[5] ~= '0' then redis.call('SET', KEYS[4], '1', 'PX', ARGV[5]) end
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return 1
`;

/**
 * ARGV: token, maxEvents, maxlen, liveTtl, ttl, lostFrame, n, events (n of them), acked (the
 * highest count Redis has confirmed to this writer), field: 'f' when the events are frames back to
 * back, 's' when they are SSE text numbered from acked (each with its `id:` line). The new count;
 * -1 when the run is not this writer's live run any more (ending it as lost if its lease expired);
 * -2 - count when the events do not fit; 'diverged' when Redis holds fewer events than it
 * confirmed (see DIVERGE); 'unordered' for text when Redis holds more than acked (its `id:` lines
 * would be wrong; a writer sends nothing after an append it did not hear back from, so only a
 * broken writer meets it). One entry for the whole append.
 */
const APPEND = `${FINISH}
local m = redis.call('HMGET', KEYS[1], 'state', 'owner', 'count')
if m[1] ~= 'live' or m[2] ~= ARGV[1] then return -1 end
local count = tonumber(m[3])
if count < tonumber(ARGV[9]) then return 'diverged' end
if redis.call('EXISTS', KEYS[3]) == 0 then
  finish(count, ARGV[6], 'instance_lost', ARGV[5], ARGV[3])
  return -1
end
if ARGV[10] == 's' and count ~= tonumber(ARGV[9]) then return 'unordered' end
local n = tonumber(ARGV[7])
if count + n > tonumber(ARGV[2]) then return -2 - count end
redis.call('XADD', KEYS[2], 'MAXLEN', ARGV[3], '0-' .. (count + n), ARGV[10], ARGV[8])
redis.call('HSET', KEYS[1], 'count', count + n)
-- The first append makes the stream: it takes the live expiry, which the lease refresh renews.
if count == 0 then redis.call('PEXPIRE', KEYS[2], ARGV[4]) end
return count + n
`;

/**
 * ARGV: token, ttl, maxlen, lostFrame, acked, [last]. 1 + the final count when ended now, 0 when
 * ended by this writer already, -1 lost, 'diverged' (see DIVERGE).
 */
const END = `${FINISH}
local m = redis.call('HMGET', KEYS[1], 'state', 'owner', 'count', 'endedBy')
if m[2] ~= ARGV[1] then return -1 end
if m[1] ~= 'live' then
  if m[4] == ARGV[1] then return 0 end
  return -1
end
if tonumber(m[3]) < tonumber(ARGV[5]) then return 'diverged' end
if redis.call('EXISTS', KEYS[3]) == 0 then
  finish(tonumber(m[3]), ARGV[4], 'instance_lost', ARGV[2], ARGV[3])
  return -1
end
return 1 + finish(tonumber(m[3]), ARGV[6], ARGV[1], ARGV[2], ARGV[3])
`;

/**
 * ARGV: lostFrame, ttl, maxlen. {state, count, access}: state -1 unknown, 0 ended, 1 live, 2 ended
 * now as lost; access the digest that guards the run, which the caller compares.
 */
const CHECK = `${FINISH}
local m = redis.call('HMGET', KEYS[1], 'state', 'count', 'access')
if not m[1] then return {-1, 0, ''} end
local count = tonumber(m[2])
local access = m[3] or ''
if m[1] ~= 'live' then return {0, count, access} end
if redis.call('EXISTS', KEYS[3]) == 0 then
  return {2, finish(count, ARGV[1], 'instance_lost', ARGV[2], ARGV[3]), access}
end
return {1, count, access}
`;

/**
 * ARGV: cancelledFrame, ttl, maxlen, channel, runId. -1 unknown, 0 ended already, 1 owner told,
 * 2 ended here (the owner's lease had expired).
 */
const CANCEL = `${FINISH}
local m = redis.call('HMGET', KEYS[1], 'state', 'count')
if not m[1] then return -1 end
if m[1] ~= 'live' then return 0 end
if redis.call('EXISTS', KEYS[3]) == 0 then
  finish(tonumber(m[2]), ARGV[1], 'cancelled', ARGV[2], ARGV[3])
  return 2
end
redis.call('HSET', KEYS[1], 'cancel', '1')
redis.call('PUBLISH', ARGV[4], ARGV[5])
return 1
`;

/**
 * ARGV: token, leaseMs, liveTtl, ttl, maxlen, lostFrame, watchReaders ('1' or '0'), acked. 1
 * refreshed and cancelled, 2 refreshed and unread (no reader has marked it seen within
 * detachedTimeoutMs), 0 refreshed, -1 lost (ending it now if its lease had expired unnoticed),
 * 'diverged' (see DIVERGE).
 */
const REFRESH = `${FINISH}
local m = redis.call('HMGET', KEYS[1], 'state', 'owner', 'cancel', 'count')
if m[1] ~= 'live' or m[2] ~= ARGV[1] then return -1 end
if tonumber(m[4]) < tonumber(ARGV[8]) then return 'diverged' end
if redis.call('EXISTS', KEYS[3]) == 0 then
  finish(tonumber(m[4]), ARGV[6], 'instance_lost', ARGV[4], ARGV[5])
  return -1
end
redis.call('SET', KEYS[3], ARGV[1], 'PX', ARGV[2])
redis.call('PEXPIRE', KEYS[1], ARGV[3])
redis.call('PEXPIRE', KEYS[2], ARGV[3])
if m[3] then return 1 end
if ARGV[7] == '1' and redis.call('EXISTS', KEYS[4]) == 0 then return 2 end
return 0
`;

/**
 * ARGV: token, acked, divergedFrame, ttl, maxlen. Redis holds fewer events of this writer's live
 * run than it confirmed to it (acked): a failover to a replica that had not received the latest
 * writes lost them. The run ends with a RUN_ERROR numbered past every event any reader may have
 * been given (acked), so that none takes what follows for what it read, and none waits for ever.
 * 1 when ended so, 0 when the run is not in that state (any more).
 */
const DIVERGE = `${FINISH}
local m = redis.call('HMGET', KEYS[1], 'state', 'owner', 'count')
if m[1] ~= 'live' or m[2] ~= ARGV[1] then return 0 end
local acked = tonumber(ARGV[2])
if tonumber(m[3]) >= acked then return 0 end
finish(acked, ARGV[3], 'store_lost', ARGV[4], ARGV[5])
return 1
`;

/** A script, and its SHA1 once Redis has told it. */
export interface Script {
  readonly lua: string;
  /** Its SHA1 as Redis names it, once Redis has told (SCRIPT LOAD): no node:crypto needed here. */
  sha: string | undefined;
}

const script = (lua: string): Script => ({ lua, sha: undefined });
/** The store's scripts, each loaded into Redis on first use. */
export const SCRIPTS = {
  create: script(CREATE),
  append: script(APPEND),
  end: script(END),
  check: script(CHECK),
  cancel: script(CANCEL),
  refresh: script(REFRESH),
  diverge: script(DIVERGE),
} as const;

/** An argument of a script: Redis takes strings, numbers and bytes. */
export type Arg = string | number | Buffer;

/**
 * Runs a script by its hash, sending it whole when the node that holds its keys does not know it
 * (first use, a restart, or, on a cluster, another node than the one SCRIPT LOAD reached: EVAL
 * goes where the keys are, and leaves the script in that node's cache).
 *
 * @throws What the client throws (a lost connection, a timeout), or Redis's error for the script.
 */
export async function evalScript(client: Redis, s: Script, keys: readonly string[], args: readonly Arg[]): Promise<unknown> {
  // The SHA1 is the script's, whichever node tells it.
  s.sha ??= (await client.script("LOAD", s.lua)) as string;
  try {
    return await client.evalsha(s.sha, keys.length, ...keys, ...args);
  } catch (error) {
    if (!(error instanceof Error) || !error.message.startsWith("NOSCRIPT")) throw error;
  }
  return await client.eval(s.lua, keys.length, ...keys, ...args);
}

/** The RUN_ERROR frames the store writes itself. */
export interface ServerFrames {
  /** The run's instance stopped before it ended (its lease ran out). */
  readonly lost: Buffer;
  /** Cancelled after its instance had stopped. */
  readonly cancelled: Buffer;
  /** Redis lost events it had confirmed (a failover to a replica that had not received them). */
  readonly diverged: Buffer;
}

let serverFrames: ServerFrames | undefined;
/**
 * The RUN_ERROR frames the store writes itself, encoded once and copied out of the encoder's pool.
 *
 * @throws Never.
 */
export function frames(): ServerFrames {
  serverFrames ??= {
    lost: Buffer.from(encodeFrame({ type: EventType.RUN_ERROR, code: "instance_lost", message: "the instance running this run stopped before it ended" })),
    cancelled: Buffer.from(encodeFrame({ type: EventType.RUN_ERROR, code: "cancelled", message: "the run was cancelled after the instance running it had stopped" })),
    diverged: Buffer.from(
      encodeFrame({ type: EventType.RUN_ERROR, code: "store_unavailable", message: "the run store lost events of this run it had taken (a failover to a replica behind its master): the run cannot go on" }),
    ),
  };
  return serverFrames;
}
