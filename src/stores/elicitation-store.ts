import type {
  ElicitationData,
  ElicitationEvent,
  ElicitationRecord,
  ExtendResult,
  FinalStatus,
  TransitionResult,
} from '../core/elicitation.types.js';
import type { AuditLink, ElicitationAuditChainStore } from './audit-chain-store.js';
import type { ElicitationCallStateStore } from './call-state-store.js';
import type { ElicitationEventChannel, ElicitationEventChannelOptions, ElicitationEventContext } from './event-channel.js';
import type {
  ElicitationInboxStore,
  ElicitationNoticeStore,
  NewNotice,
  NoticeOutboxStats,
  NoticeOutcome,
  OpenPage,
  OpenPageRequest,
  StoredNotice,
} from './notice-store.js';
import type { AddPasskeyResult, ElicitationPasskeyStore, PasskeyResealStep, StoredPasskey } from './passkey-store.js';

export type { ElicitationEventChannel, ElicitationEventChannelOptions, ElicitationEventContext } from './event-channel.js';
import type { CreateTaskResult, ElicitationTaskStore, FinishedTaskLimit, PutTaskResult, StoredTask, TaskLimit } from './task-store.js';

/** The change `finish` applies to a pending record. */
export interface FinishChange {
  status: FinalStatus;
  /** Submitted data; only with `status: 'completed'`. */
  data?: ElicitationData;
  /** The time of the change, epoch milliseconds. */
  now: number;
  /** When the finished record may be forgotten, epoch milliseconds. */
  purgeAt: number;
}

/** The change `extend` applies to a pending record ("Need more time?"). */
export interface ExtendChange {
  /** The new expiry, epoch milliseconds: later than the record's (the service never passes an earlier one). */
  expiresAt: number;
  /** When the record may be forgotten, epoch milliseconds (its `purgeAt` moved on by as much as its expiry). */
  purgeAt: number;
  /** The time of the change, epoch milliseconds (the record's `extendedAt`). */
  now: number;
}

/** Abuse limits `create` enforces atomically with the write (shared across instances on a shared store). */
export interface CreateQuota {
  /** Creations one user may attempt per window (refused attempts count too). */
  perUserLimit: number;
  /** The rate window, in milliseconds. */
  windowMs: number;
  /** Pending records one user may have. */
  maxPendingPerUser: number;
  /** Pending records overall. */
  maxPending: number;
}

/** What `create` did: `created`, or which limit refused the record (then nothing was stored). */
export type CreateResult = 'created' | 'rate-limited' | 'user-pending-limit' | 'pending-limit';

/**
 * What a store may add to the result of a move it made (`create`, `finish`, `extend`, `sweep`): `eventSent: true` when
 * it sent the move's lifecycle event to the other instances itself, in the same step (the Redis store's scripts
 * append it to the event stream while one event channel is open on the store). The module then hands the event to
 * this instance's listeners only and does not publish it on the channel again. Unset or `false` (a store that says
 * nothing): the module publishes the event on the store's channel. A refused move has no event: a store never says
 * it sent one.
 */
export interface EventSentReport {
  readonly eventSent?: boolean;
}

/** `create`'s `'created'` with the store's `EventSentReport`, from a store that sent the `created` event itself. */
export interface CreatedReport extends EventSentReport {
  readonly result: 'created';
}

/** `sweep`'s expired records with the store's `EventSentReport`, from a store that sent their `expired` events itself. */
export interface SweepReport extends EventSentReport {
  /** The records the sweep expired (read-only, as `sweep` returns them). */
  readonly expired: ReadonlyArray<Readonly<ElicitationRecord>>;
}

/** What `create` answered, without the store's report: `'created'` or the limit that refused. */
export function createResultOf(answer: CreateResult | CreatedReport): CreateResult {
  return typeof answer === 'string' ? answer : answer.result;
}

/** What `sweep` answered, as a report: the records it expired, and whether it sent their events. */
export function sweepReportOf(answer: ReadonlyArray<Readonly<ElicitationRecord>> | SweepReport): SweepReport {
  return 'expired' in answer ? answer : { expired: answer };
}

/** A fixed-window counter after one hit. */
export interface CounterHit {
  /** Hits in the current window, this one included. */
  count: number;
  /** When the window ends, epoch milliseconds. */
  resetAt: number;
}

/**
 * What the module hands a store through `useKeys`: keyed hashes and sealing under keys derived (HKDF-SHA256)
 * from the module's `encryptionKey` ring, never the ring itself (a store cannot open answers, `requestState`s
 * or CSRF tokens with them). Every instance configured with the same `encryptionKey` gets the same names and
 * opens what the others sealed.
 */
export interface ElicitationStoreKeys {
  /**
   * The names of `parts` for `purpose` (user ids, say, for the names of index keys): one per key of the ring,
   * the first key's first. Each is a keyed hash (HMAC-SHA256 cut to 128 bits, 22 base64url characters), the
   * same on every instance sharing the key and meaningless without it. Write under the first; read and count
   * under all, so that entries written before a key rotation are still found after it.
   */
  names(purpose: string, ...parts: string[]): readonly string[];
  /** Seals `plaintext` (AES-256-GCM, the first key), bound to `context`; every call gives another ciphertext. */
  seal(plaintext: string, context: string): string;
  /** Opens what `seal` sealed for the same `context` under any key of the ring; throws when it cannot. */
  open(sealed: string, context: string): string;
}

/**
 * One app instance's `encryptionKey` ring as a shared store records it (`announceKeyRing`): key ids only, never
 * keys.
 */
export interface KeyRingEntry {
  /** A random id of the announcing module, new at every start: letters, digits and `-`, at most 64. */
  instanceId: string;
  /**
   * The ids of its keys, the first (sealing) key's first: 8 hex characters each, fingerprints derived from the
   * keys (HKDF) that reveal nothing about them, and the `<key id>` of every value sealed under them.
   */
  keyIds: readonly string[];
}

/**
 * The record side of a store: where elicitations live, from creation to purge.
 *
 * Every method is one call so that a networked store can make it one round trip, and `finish` is an
 * atomic compare-and-set so that a record leaves `pending` exactly once, across processes. Times are
 * passed in (epoch milliseconds), never read from a clock, so stores stay deterministic.
 *
 * Optional, the three together: the tasks of the MCP Tasks extension (`ElicitationTaskStore`). Optional, the two
 * together: what a 2025-11-25 call that ended before its tool ran leaves for its continuation (`ElicitationCallStateStore`).
 *
 * Check an implementation with `describeElicitationRecordStoreContract` (`nestjs-mcp-elicitation/testing`).
 */
export interface ElicitationRecordStore
  extends
    Partial<ElicitationTaskStore>,
    Partial<ElicitationCallStateStore>,
    Partial<ElicitationInboxStore>,
    Partial<ElicitationNoticeStore>,
    Partial<ElicitationPasskeyStore>,
    Partial<ElicitationAuditChainStore> {
  /**
   * Stores a new pending record unless a `quota` limit refuses it (then nothing is stored). The id is new;
   * the store keeps the record until `record.purgeAt`. Quota check and write are one atomic step. A store that sent
   * the `created` event itself says so with `{ result: 'created', eventSent: true }` (`CreatedReport`).
   */
  create(record: ElicitationRecord, quota?: CreateQuota): Promise<CreateResult | CreatedReport>;

  /**
   * Reads one record. Resolves `undefined` for unknown ids and for records past their `purgeAt`.
   * A pending record past its `expiresAt` is returned as it is (still `pending`); the service expires it.
   * The record is the caller's own copy.
   */
  get(id: string, now: number): Promise<ElicitationRecord | undefined>;

  /**
   * Atomic compare-and-set out of `pending`. Succeeds only while the record is `pending` and, unless the
   * change is `expired`, before its `expiresAt`. Never overwrites a finished record. A store that sent the event
   * of the move itself says so on the `ok: true` result (`eventSent: true`, see `EventSentReport`).
   */
  finish(id: string, change: FinishChange): Promise<TransitionResult & EventSentReport>;

  /**
   * Read-once delivery: atomically returns a completed record with its data and removes the data from the
   * store (setting `consumedAt`). Resolves `undefined` when the record is unknown, not completed or
   * already consumed.
   */
  consume(id: string, now: number): Promise<ElicitationRecord | undefined>;

  /** The most recently completed, not consumed record for this user and type, if any is still retained. */
  findLatestCompleted(userId: string, type: string, now: number): Promise<ElicitationRecord | undefined>;

  /** All retained records of one user, oldest first. */
  listByUser(userId: string, now: number): Promise<ElicitationRecord[]>;

  /**
   * Optional, an index read: the retained records of `userId` created with this `askKey` (`ElicitationRecord.askKey`),
   * newest first; a pending one past its `expiresAt` as it is (still `pending`), none of another user. The MCP binding's
   * link rung looks questions up by it (the newest one whose outcome no finished call has used). Without it the
   * module filters `listByUser`, which reads all of the user's records.
   */
  findByAskKey?(userId: string, askKey: string, now: number): Promise<ElicitationRecord[]>;

  /**
   * Expires every pending record whose `expiresAt` is at or before `now` (setting `finishedAt: now` and
   * `purgeAt: now + retentionMs`) and forgets every record whose `purgeAt` has passed. Resolves the
   * records it expired, so the caller can announce them. They are read-only: unlike `get`, a store may
   * hand out its own objects here rather than copies (the memory store does, for speed). Its cost should
   * follow the number of due records, not the number of stored ones. A store that sent their `expired` events
   * itself resolves `{ expired, eventSent: true }` (`SweepReport`) instead.
   */
  sweep(now: number, retentionMs: number): Promise<ReadonlyArray<Readonly<ElicitationRecord>> | SweepReport>;

  /**
   * Optional ("Need more time?"): gives a pending record more time, once. Atomic, like `finish`: succeeds only
   * while the record is `pending`, before its `expiresAt` and not extended yet; then sets `expiresAt` and
   * `purgeAt` from `change`, `extendedAt: change.now` and `extendedFrom` (the `expiresAt` it had), and keeps
   * every index in step, so that `sweep` expires the record at its new `expiresAt`, not before. Refusals, checked
   * in this order: `not-found` (unknown or purged), `already-finished`, `expired` (at or after `expiresAt`, still
   * pending), `already-extended`. A store shared by several instances that sends events itself (as `finish`
   * may) sends the `extended` event with the new `expiresAt` and says so (`eventSent: true` on the `ok: true`
   * result, see `EventSentReport`). Without it, the service answers `unsupported`.
   */
  extend?(id: string, change: ExtendChange): Promise<ExtendResult & EventSentReport>;

  /** Optional liveness check for health indicators; rejects when the backend is unreachable. */
  ping?(): Promise<void>;

  /**
   * Optional: for stores shared by several app instances. Opens a channel on which events published by
   * other instances arrive (`onRemoteEvent`, with what travelled beside each: `ElicitationEventContext`), so a
   * page submitted on one instance wakes waiting tools and notifies MCP sessions held by another.
   */
  openEventChannel?(
    onRemoteEvent: (event: ElicitationEvent, context?: ElicitationEventContext) => void,
    options?: ElicitationEventChannelOptions,
  ): Promise<ElicitationEventChannel>;

  /**
   * Optional, for stores shared by several app instances: records that instance `entry.instanceId` runs with the
   * key ring `entry.keyIds` until `now + ttlMs` (replacing its earlier entry; `ttlMs: 0` removes it), forgets the
   * entries whose time has passed, and resolves every entry still live at `now` (this one's included unless
   * removed). One atomic step. `ElicitationModule` announces its ring when it starts, refuses to start when it
   * shares no key with a live instance and warns when the rings only partly agree; it announces again every
   * 20 s with a `ttlMs` of 60 s while it runs, and removes its entry on shutdown.
   */
  announceKeyRing?(entry: KeyRingEntry, now: number, ttlMs: number): Promise<KeyRingEntry[]>;
}

/**
 * The counter side of a store: fixed-window hit counters, shared across instances on a shared store. The
 * page throttle, the hosted form's invalid-attempt limit and the single use of a `requestState` count here.
 *
 * Check an implementation with `describeElicitationCounterStoreContract` (`nestjs-mcp-elicitation/testing`).
 */
export interface ElicitationCounterStore {
  /** Counts one hit on `key` in a fixed window of `windowMs`; shared across instances on a shared store. */
  hit(key: string, windowMs: number, now: number): Promise<CounterHit>;

  /**
   * Optional: the hits counted so far on `key` in the window of `now`, without counting one (0 for none).
   * Lets a caller refuse what was already used before it commits to using it; stores without it are
   * still correct, because `hit` stays the atomic check.
   */
  peekHits?(key: string, windowMs: number, now: number): Promise<number>;
}

/**
 * A whole store: both contracts in one object, and the injection token of the configured store (inject
 * `ElicitationStore` by type). A custom store is `class MyStore extends ElicitationStore`; the members
 * are documented on `ElicitationRecordStore` and `ElicitationCounterStore`, but `useKeys`, which serves
 * both and is documented here.
 *
 * Check an implementation with `describeElicitationStoreContract` (`nestjs-mcp-elicitation/testing`),
 * which runs the suites of both contracts.
 */
export abstract class ElicitationStore implements ElicitationRecordStore, ElicitationCounterStore {
  /**
   * Whether several processes may use this store's data at once (`RedisElicitationStore`: `true`;
   * `MemoryElicitationStore`: `false`). With a shared store `ElicitationModule` requires `encryptionKey` in every
   * environment, since a random per-process key would leave each instance unable to open what the others seal.
   * Unset, a store that offers `openEventChannel` (events between instances) counts as shared and any other as
   * not: a custom store shared some other way says so itself.
   */
  declare readonly shared?: boolean;
  /**
   * Whether the store keeps its records in this process's memory and nowhere else (`MemoryElicitationStore`:
   * `true`; unset counts as `false`, as for `RedisElicitationStore` and custom stores). Answers are sealed with
   * `encryptionKey` only in a store that keeps them elsewhere (a server, a file, another process): in this
   * process's heap the key would lie next to what it seals, so sealing would protect nothing. Answers kept in
   * the process are kept as their JSON text, so every reader gets its own copy.
   */
  declare readonly inProcess?: boolean;
  abstract create(record: ElicitationRecord, quota?: CreateQuota): Promise<CreateResult | CreatedReport>;
  abstract get(id: string, now: number): Promise<ElicitationRecord | undefined>;
  abstract finish(id: string, change: FinishChange): Promise<TransitionResult & EventSentReport>;
  abstract consume(id: string, now: number): Promise<ElicitationRecord | undefined>;
  abstract findLatestCompleted(userId: string, type: string, now: number): Promise<ElicitationRecord | undefined>;
  abstract listByUser(userId: string, now: number): Promise<ElicitationRecord[]>;
  findByAskKey?(userId: string, askKey: string, now: number): Promise<ElicitationRecord[]>;
  abstract sweep(now: number, retentionMs: number): Promise<ReadonlyArray<Readonly<ElicitationRecord>> | SweepReport>;
  extend?(id: string, change: ExtendChange): Promise<ExtendResult & EventSentReport>;
  ping?(): Promise<void>;
  openEventChannel?(
    onRemoteEvent: (event: ElicitationEvent, context?: ElicitationEventContext) => void,
    options?: ElicitationEventChannelOptions,
  ): Promise<ElicitationEventChannel>;
  announceKeyRing?(entry: KeyRingEntry, now: number, ttlMs: number): Promise<KeyRingEntry[]>;
  /**
   * Optional, for stores that keep data outside the process (others need no keys): receives the keys of the
   * module's `encryptionKey` (see `ElicitationStoreKeys`), before the store's first use, so that the store can
   * name index entries by keyed hashes rather than by user ids, IP addresses or types, and seal what it keeps
   * of a record. Called once per module using the store; a store shared by modules with other keys should
   * throw `ElicitationConfigError`. `RedisElicitationStore` refuses to work without its keys.
   */
  useKeys?(keys: ElicitationStoreKeys): void;
  abstract hit(key: string, windowMs: number, now: number): Promise<CounterHit>;
  peekHits?(key: string, windowMs: number, now: number): Promise<number>;
  /** Optional, the three together: the tasks of the MCP Tasks extension (documented on `ElicitationTaskStore`), and `getTasks` with them. */
  createTask?(task: StoredTask, limit: TaskLimit): Promise<CreateTaskResult>;
  getTask?(id: string, now: number): Promise<StoredTask | undefined>;
  getTasks?(ids: readonly string[], now: number): Promise<Array<StoredTask | undefined>>;
  putTask?(task: StoredTask, now: number, finished?: FinishedTaskLimit): Promise<PutTaskResult>;
  /** Optional, the two together: a call's state for its continuation (documented on `ElicitationCallStateStore`). */
  keepCallState?(key: string, value: string, expiresAt: number): Promise<void>;
  takeCallState?(key: string, now: number): Promise<string | undefined>;
  /** Optional: a page of a user's open questions, for the inbox (documented on `ElicitationInboxStore`). */
  listOpen?(userId: string, now: number, page: OpenPageRequest): Promise<OpenPage>;
  /** Optional, the four together: the notifications' outbox (documented on `ElicitationNoticeStore`). */
  addNotices?(notices: readonly NewNotice[], now: number): Promise<number>;
  claimNotices?(owner: string, now: number, limit: number, leaseMs: number): Promise<StoredNotice[]>;
  settleNotice?(id: string, owner: string, outcome: NoticeOutcome, now: number): Promise<boolean>;
  noticeStats?(now: number): Promise<NoticeOutboxStats>;
  /** Optional, the five together, `resealPasskeys` beside them: users' passkeys (documented on `ElicitationPasskeyStore`). */
  addPasskey?(passkey: StoredPasskey, maxPerUser: number): Promise<AddPasskeyResult>;
  getPasskey?(id: string): Promise<StoredPasskey | undefined>;
  listPasskeys?(userId: string): Promise<StoredPasskey[]>;
  removePasskey?(userId: string, id: string, now: number): Promise<boolean>;
  usePasskey?(id: string, expected: number, counter: number, now: number): Promise<boolean>;
  resealPasskeys?(cursor: string | undefined, limit: number): Promise<PasskeyResealStep>;
  /** Optional, the three together: append-only audit chains (documented on `ElicitationAuditChainStore`). */
  lastAuditLink?(stream: string): Promise<AuditLink | undefined>;
  appendAuditLink?(link: AuditLink): Promise<boolean>;
  readAuditLinks?(stream: string, fromSeq: number, limit: number): Promise<AuditLink[]>;
}

/**
 * Whether `store` is shared between processes (see `ElicitationStore.shared`): its own word when it gives one,
 * otherwise whether it offers `openEventChannel`.
 */
export function isSharedStore(store: Pick<ElicitationStore, 'shared' | 'openEventChannel'>): boolean {
  return store.shared ?? typeof store.openEventChannel === 'function';
}
