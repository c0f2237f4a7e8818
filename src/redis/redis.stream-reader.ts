import { isClusterClient, type RedisClient } from './redis.client.js';

/**
 * How long one XREAD waits for new events before it is sent again, in milliseconds. With READ_TIMEOUT_MS it
 * bounds how long a reader connection that died without a word goes unnoticed.
 */
export const READ_BLOCK_MS = 5_000;
/** The reader connection's command timeout: one XREAD's wait plus slack (it replaces a shorter one of the store's client). */
export const READ_TIMEOUT_MS = READ_BLOCK_MS + 5_000;
/** Most events one XREAD returns (a bigger backlog takes several reads, one right after the other). */
const READ_COUNT = 256;

/** An entry as XREAD returns it: its id and its fields (name, value, ...). */
export type StreamEntry = [id: string, fields: unknown[]];

/** Where a stream ends: the id of its last entry (`0-0` when it has none) and the count of entries it was given. */
export interface StreamPosition {
  lastId: string;
  /** `entries-added` (Redis 7); `undefined` on Redis 6.2. */
  added: number | undefined;
}

/**
 * One XREAD of `stream` after `lastId`, waiting up to READ_BLOCK_MS for something new. On a standalone or
 * Sentinel connection it rejects as soon as the connection drops (ioredis would not send the read again).
 */
export function readAfter(reader: RedisClient, stream: string, lastId: string): Promise<StreamEntry[]> {
  const reading = reader.xread('COUNT', READ_COUNT, 'BLOCK', READ_BLOCK_MS, 'STREAMS', stream, lastId) as Promise<unknown>;
  if (isClusterClient(reader)) return reading.then(entriesOf);
  return new Promise<StreamEntry[]>((resolve, reject) => {
    const lost = () => reject(new Error('the connection closed'));
    reader.once('close', lost);
    reading.then(
      (reply) => {
        reader.off('close', lost);
        resolve(entriesOf(reply));
      },
      (error: unknown) => {
        reader.off('close', lost);
        reject(error instanceof Error ? error : new Error(String(error)));
      },
    );
  });
}

/** What XINFO STREAM tells of a stream, or `undefined` when there is none. */
export async function streamInfo(
  redis: RedisClient,
  stream: string,
): Promise<{ lastGeneratedId: string; added: number | undefined; length: number; firstId: string | undefined } | undefined> {
  let reply: unknown;
  try {
    reply = await redis.xinfo('STREAM', stream);
  } catch (error) {
    if (error instanceof Error && /no such key/i.test(error.message)) return undefined;
    throw error;
  }
  const fields = fieldMap(reply);
  const first = fields.get('first-entry');
  const added = fields.get('entries-added');
  const lastGeneratedId = fields.get('last-generated-id');
  return {
    lastGeneratedId: typeof lastGeneratedId === 'string' ? lastGeneratedId : '0-0',
    added: typeof added === 'number' ? added : undefined,
    length: Number(fields.get('length') ?? 0),
    firstId: Array.isArray(first) && typeof first[0] === 'string' ? first[0] : undefined,
  };
}

/**
 * The stream's end now (the last id it gave, so that every later entry is new; `0-0` and a count of 0 when
 * there is no stream yet, as every entry of a stream made later is new).
 */
export async function streamEnd(redis: RedisClient, stream: string): Promise<StreamPosition> {
  const info = await streamInfo(redis, stream);
  return info ? { lastId: info.lastGeneratedId, added: info.added } : { lastId: '0-0', added: 0 };
}

/**
 * The entries of an XREAD reply on one stream: `[[stream, entries]]` (RESP2 shapes), or `{ stream: entries }`
 * / a Map (RESP3 shapes); none for `null` (the wait ended with nothing new).
 */
function entriesOf(reply: unknown): StreamEntry[] {
  let entries: unknown;
  if (Array.isArray(reply)) entries = Array.isArray(reply[0]) ? (reply[0] as unknown[])[1] : undefined;
  else if (reply instanceof Map) entries = [...(reply as Map<unknown, unknown>).values()][0];
  else if (typeof reply === 'object' && reply !== null) entries = Object.values(reply)[0];
  if (!Array.isArray(entries)) return [];
  return entries.filter((e): e is StreamEntry => Array.isArray(e) && typeof e[0] === 'string' && Array.isArray(e[1]));
}

/** The value of field `name` in an entry's `[name, value, ...]`, when it is a string. */
export function fieldValue(fields: unknown[], name: string): string | undefined {
  for (let i = 0; i + 1 < fields.length; i += 2) {
    if (fields[i] === name && typeof fields[i + 1] === 'string') return fields[i + 1] as string;
  }
  return undefined;
}

/** XINFO's reply as a map: `[name, value, ...]` (RESP2 shapes), an object or a Map (RESP3 shapes). */
function fieldMap(reply: unknown): Map<string, unknown> {
  if (reply instanceof Map) return new Map([...(reply as Map<unknown, unknown>)].map(([k, v]) => [String(k), v]));
  if (Array.isArray(reply)) {
    const map = new Map<string, unknown>();
    for (let i = 0; i + 1 < reply.length; i += 2) map.set(String(reply[i]), reply[i + 1]);
    return map;
  }
  return new Map<string, unknown>(typeof reply === 'object' && reply !== null ? Object.entries(reply) : []);
}

/** Compares two stream ids (`<ms>-<seq>`): negative, zero or positive. */
export function compareStreamIds(a: string, b: string): number {
  const [am, as = '0'] = a.split('-');
  const [bm, bs = '0'] = b.split('-');
  const ms = BigInt(am) - BigInt(bm);
  if (ms !== 0n) return ms < 0n ? -1 : 1;
  const seq = BigInt(as) - BigInt(bs);
  return seq === 0n ? 0 : seq < 0n ? -1 : 1;
}
