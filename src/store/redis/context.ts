/**
 * What the parts of one Redis store share: its connections, its local windows, its settings, its
 * writer token, and the numbers derived from them once.
 *
 * @module
 */
import type { RedisOptions } from "ioredis";
import type { Connections } from "./connection.js";
import type { LocalWindows } from "./local-window.js";
import type { RunKeys, Settings } from "./options.js";

/** One store's shared state (see the module comment). */
export interface StoreContext {
  readonly connections: Connections;
  readonly windows: LocalWindows;
  readonly settings: Settings;
  /** This store's random token: the owner of the runs it writes, in their meta and lease. */
  readonly token: string;
  /** `leaseMs + ttlMs`: the expiry of a live run's keys, renewed with its lease. */
  readonly liveTtl: number;
  /** The most entries a run's stream keeps (`MAXLEN`): a safety net, never reached by a run the count allows. */
  readonly maxlen: number;
  /** The channel cancels are published on. */
  readonly channel: string;
  /** How the cancel subscription's connection and readers' blocking connections behave. */
  readonly connectionOptions: { readonly subscriber: RedisOptions; readonly reader: RedisOptions };
  /** The keys of a run. */
  keys(runId: string): RunKeys;
}
