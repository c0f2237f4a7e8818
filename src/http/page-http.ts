import type { IncomingHttpHeaders } from 'node:http';

/** What the pages read of a Node request. */
export interface NodeRequestPart {
  readonly method?: string;
  /** The request target as received (path and query, not decoded). */
  readonly url?: string;
  readonly headers: IncomingHttpHeaders;
}

/**
 * A page route's request, on either adapter: Express's is a Node request itself, Fastify's carries the Node
 * one under `raw`. Read it through `raw()`, which is what both adapters share.
 */
export interface PageRequest extends NodeRequestPart {
  readonly raw?: NodeRequestPart;
}

/** What the pages use of a Node response. */
export interface NodeResponsePart {
  removeHeader?(name: string): void;
}

/**
 * A page route's response, on either adapter: Express's response and Fastify's reply both have these
 * methods; Express's is a Node response itself, Fastify's carries the Node one under `raw`.
 */
export interface PageResponse extends NodeResponsePart {
  status(code: number): unknown;
  header(name: string, value: string): unknown;
  send(body: string): unknown;
  readonly raw?: NodeResponsePart;
}

/** The Node request or response under an Express or Fastify one. */
export function raw<N>(value: N & { readonly raw?: N }): N {
  return value.raw ?? value;
}
