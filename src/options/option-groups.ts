/** The option groups and hooks `ElicitationModuleOptions` is made of (re-exported by `elicitation-options.interface.ts`). */
import type { Readable } from 'node:stream';

/**
 * Abuse limits, each a positive whole number. Counted in the store, so shared across instances when the
 * store is shared (Redis). Defaults: `DEFAULT_LIMITS`.
 */
export interface ElicitationLimits {
  /** Elicitations one user may create per minute (a 60-second window); above it `ElicitationQuotaError`. @default 10 */
  createPerMinute?: number;
  /** Pending elicitations one user may have at once (count). @default 20 */
  maxPendingPerUser?: number;
  /** Pending elicitations across all users (count). @default 100000 */
  maxPending?: number;
  /** Largest page POST body, in bytes (413 above it). @default 16384 */
  maxBodyBytes?: number;
  /** Largest `metadata` (as JSON) at creation, in bytes. @default 4096 */
  maxMetadataBytes?: number;
  /** Largest stored answer (as JSON), in bytes. @default 1048576 */
  maxResultBytes?: number;
  /**
   * Invalid submissions (count) the hosted form page (`kind: 'form'`) accepts per elicitation: the one that
   * reaches it declines the elicitation. Counted in the store, so shared across instances. Also the answers one
   * form-mode question (`elicit`, both protocol eras) takes in all: invalid ones are asked again naming the fields,
   * the last throws `ElicitationValidationError`. @default 3
   */
  maxFormAttempts?: number;
  /**
   * Largest file a file page (`kind: 'file'`) accepts, in bytes (413 above it, nothing stored), and the ceiling of
   * each elicitation's own `maxBytes`. Without an `uploadSink` the content is sealed in the store (base64, so it
   * takes about 4/3 of this there). @default 5242880 (5 MiB)
   */
  maxUploadBytes?: number;
  /**
   * Bytes of files the file pages may hold in memory at once, all uploads in flight together, in this process (not
   * counted in the store): each post reserves, before it keeps a byte of its file, its elicitation's `maxBytes` (or
   * its `Content-Length` when smaller), and a post that would pass this answers 503 with `Retry-After` (its body
   * read and dropped, nothing stored). Files for an `uploadSink` count too: the sink gets a file once it was read
   * whole. At least `maxUploadBytes`. @default 67108864 (64 MiB), or `maxUploadBytes` when that is larger
   */
  uploadBufferBytes?: number;
  /**
   * Tool calls one MCP session may have waiting for a person at once (through the binding's wrapper, `tool()` or
   * `runCall`, in either protocol era): past it a call is refused with a JSON-RPC error (-32005) naming this limit,
   * and nothing stored changes. Counted in this process, not in the store. @default 16
   */
  maxCallsInFlightPerSession?: number;
  /**
   * Tool calls one user may have waiting for a person at once, all their sessions together (as
   * `maxCallsInFlightPerSession`). Counted in this process: on a shared store each instance allows this many.
   * @default 64
   */
  maxCallsInFlightPerUser?: number;
  /**
   * Largest result of one step (`elicitation.step`), as JSON, in bytes: kept with the task (sealed in a shared store)
   * or carried in a 2026-07-28 call's sealed `requestState`. A larger result throws `ElicitationStepError` (the
   * step's function ran; a later run calls it again with the same idempotency key). @default 8192
   */
  maxStepResultBytes?: number;
}

/** A file a file page (`kind: 'file'`) received, handed to `uploadSink` once its size and type passed. */
export interface ElicitationUpload {
  elicitationId: string;
  /** The user the elicitation is for (the page checked the browser user). */
  userId: string;
  /**
   * The file's name as the browser sent it, its last path segment without control, bidirectional or zero-width
   * characters, NFC-normalised, at most 255 characters (untrusted text: a name to show, never a path to use).
   */
  name: string;
  /**
   * The MIME type found from the content's magic bytes (never the browser's claim): what the first bytes are, not
   * what the whole file is, so never a `Content-Type` to serve the file back with.
   */
  type: string;
  /** The file's size in bytes. */
  size: number;
  /** The file's bytes. */
  stream: Readable;
}

/**
 * Where a file page's files go instead of the store (e.g. object storage): resolves the reference the answer carries
 * (`ref`, a string of at most 2048 characters). A rejection answers the page 502 and completes nothing.
 */
export type UploadSink = (file: ElicitationUpload) => Promise<string>;

/**
 * Per-IP throttling of the module's own routes (the pages and the status route; the host app's other
 * routes are untouched): a fixed window per client IP (`req.ip`; set `trust proxy` behind a proxy),
 * counted by the module itself in the store (`store.hit`), so instances sharing a store share the count.
 * Above the limit the route answers 429 with `Retry-After`. Defaults: `DEFAULT_THROTTLE`.
 */
export interface ElicitationThrottle {
  /** Requests one IP may make per window (status polling included), a positive whole number. @default 300 */
  limit?: number;
  /** The window, in milliseconds. @default 60000 (1 minute) */
  ttlMs?: number;
}

/**
 * Tool calls that run as tasks (the MCP Tasks extension, `io.modelcontextprotocol/tasks`, protocol 2026-07-28): see
 * the "Long waits: tasks" guide. Each field defaults on its own.
 */
export interface ElicitationTaskOptions {
  /** How long a task lives from its creation, in milliseconds (its `ttlMs`): then it is forgotten. @default 86400000 (1 day) */
  ttlMs?: number;
  /** How often a client should poll `tasks/get`, in milliseconds (the task's `pollIntervalMs`). @default 2000 */
  pollIntervalMs?: number;
  /** Tasks one user may have open (not completed, failed or cancelled) at once; past it a call gets -32005. @default 20 */
  maxOpenPerUser?: number;
  /**
   * How long an instance's claim on a task it runs holds without renewal, in milliseconds (renewed every third of
   * it while the tool body runs): a task whose instance died is taken over by another after this. @default 30000
   */
  leaseMs?: number;
  /**
   * `subscriptions/listen` streams for task notifications one user may hold open at once on an instance; past it a
   * listen gets -32005 naming this option (one user cannot take the streams every user shares). @default 10
   */
  maxListenersPerUser?: number;
  /** Task ids one such stream may follow; a listen naming more gets -32005 naming this option. @default 50 */
  maxTasksPerListener?: number;
  /**
   * Whether a call without a verified user (`resolveMcpUser` finds none) may make a task. Off: such a call of an
   * `optional` tool runs as a plain call, and a `required` tool refuses it (-32600 naming this option). On: the task is
   * bound to no user (its id alone reads and answers it), and such tasks count against `maxOpenAnonymous`, all
   * together (protocol 2026-07-28 has no session to tell one caller from another). @default false
   */
  allowAnonymous?: boolean;
  /**
   * Open tasks bound to no user (`allowAnonymous`), all such callers together; past it such a call gets -32005 naming
   * this option. Keep it small: one anonymous caller can fill it for every other. @default 100
   */
  maxOpenAnonymous?: number;
  /**
   * Tasks one user may create in a minute (counted in the store, so across instances); past it a call gets -32005
   * naming this option. Tasks bound to no user (`allowAnonymous`) are counted per MCP session where the server keeps
   * sessions, else all together. @default 30
   */
  createPerMinute?: number;
  /**
   * Finished tasks (completed, failed or cancelled) kept for one user until they expire, so that the client can still
   * read their results; past it the oldest finished are forgotten first (the store drops them when another finishes).
   * Counted in the store, so across instances. @default 100
   */
  maxFinishedPerUser?: number;
  /** Finished tasks kept in all, every user together; past it the oldest finished are forgotten first. @default 10000 */
  maxFinished?: number;
}

/**
 * Finds the user behind a browser request to an elicitation page, typically from your own session
 * cookie. Return `undefined`/`null` for an unidentified browser.
 */
// `req` is the host framework's request (Express or Fastify): `any` lets you type it as yours.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type ResolvePageUser = (req: any) => string | undefined | null | Promise<string | undefined | null>;

/**
 * Finds the verified user behind an MCP request from the SDK's handler `extra` (its `authInfo` is set
 * by your MCP authorization middleware). Never trust an identity the client merely asserts.
 */
// `extra` differs between MCP SDK lines and transports: `any` lets you type it as yours.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type ResolveMcpUser = (extra: any) => string | undefined | null;

/**
 * Chooses the language of a page from its request (`req` is Express's or Fastify's), e.g. from the user's profile
 * or a cookie: a locale tag such as `de` or `de-CH`. `undefined`, `null` or a locale without a catalog: the
 * `Accept-Language` header decides. Synchronous: it runs for error pages too.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type ResolveLocale = (req: any) => string | undefined | null;
