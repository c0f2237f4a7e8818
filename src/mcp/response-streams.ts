import { AsyncLocalStorage } from 'node:async_hooks';
import { ElicitationResponseClosedError } from '../errors/elicitation-response-closed.error.js';
import { isSdkV2Context, type SdkRequestExtra } from './sdk/sdk.types.js';

/** The part of a Node `ServerResponse` (Express's, or Fastify's `reply.raw`) that `bindResponse` watches. */
export interface BoundResponse {
  once(event: 'close', listener: () => void): unknown;
  /** Whether the whole response was written: a close after that is no hang-up. */
  readonly writableFinished?: boolean;
  /** Whether it closed already. */
  readonly closed?: boolean;
}

/** The hang-up signal of the response the current code serves (`bindResponse`), if any. */
const responses = new AsyncLocalStorage<AbortSignal>();

/**
 * Runs `handle` (your SDK transport's `handleRequest(req, res, body)`) with `res` bound to the tool calls it starts:
 * when `res` closes before it was written whole (the client hung up), a call that waits for a person there stops
 * waiting, its keep-alive stops, and the question stays open for a later call. SDK 1.x tells a tool call nothing
 * of its response stream, so a 2025-11-25 route on SDK 1.x sessions wraps each request in this; SDK 2.x hands the
 * binding the request's own signal, so this adds nothing there (and costs nothing). A transport with an event store
 * lets the client resume the stream, so its calls keep waiting. Returns what `handle` returns.
 */
export function bindResponse<R>(res: BoundResponse, handle: () => R): R {
  const hungUp = new AbortController();
  const closed = () => {
    if (!res.writableFinished) hungUp.abort(new ElicitationResponseClosedError());
  };
  if (res.closed) closed();
  else res.once('close', closed);
  return responses.run(hungUp.signal, handle);
}

/**
 * The signal, aborted with `ElicitationResponseClosedError`, that a tool call's response stream closed and nothing
 * can resume it: from the response `bindResponse` bound, and on SDK 2.x from the HTTP request's own signal. None
 * when the transport can resume the stream (it offers the call `closeSSEStream`: an event store), or when nothing
 * tells (SDK 1.x without `bindResponse`, an in-memory transport).
 */
export function hangUpOf(context: unknown): AbortSignal | undefined {
  const bound = responses.getStore();
  if (!isSdkV2Context(context)) {
    return typeof (context as SdkRequestExtra | undefined)?.closeSSEStream === 'function' ? undefined : bound;
  }
  if (typeof context.http?.closeSSE === 'function') return undefined;
  const request = context.http?.req?.signal;
  if (!request) return bound;
  // The request's signal aborts with the HTTP layer's own reason (a string): the call sees one error for a hang-up.
  const hungUp = new AbortController();
  const closed = () => hungUp.abort(new ElicitationResponseClosedError());
  if (request.aborted) closed();
  else request.addEventListener('abort', closed, { once: true });
  return bound ? AbortSignal.any([bound, hungUp.signal]) : hungUp.signal;
}
