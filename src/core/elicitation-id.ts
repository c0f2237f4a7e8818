import { randomUUID } from 'node:crypto';

/**
 * Elicitation ids are v4 UUIDs (122 random bits from `crypto.randomUUID`). Anything else is refused before the store
 * is touched.
 */
export const ELICITATION_ID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/**
 * A new v4 UUID (an elicitation's id, a task's) as one flat string. Node builds `randomUUID()`'s string from some
 * twenty pieces, and a string kept so holds them all (about 490 bytes of heap instead of 56); matching it once
 * flattens it. Guarded by bench/memory.bench.ts (the heap a pending record and a waiting task hold).
 */
export function newUuid(): string {
  const id = randomUUID();
  ELICITATION_ID_PATTERN.test(id);
  return id;
}

declare const CHECKED: unique symbol;

/**
 * An elicitation id whose shape was checked (`parseElicitationId`): the one id check, made once per request where
 * the id comes in; the lifecycle's internal reads and moves take it as it is. Internal (the package's API takes ids
 * as strings).
 */
export type ElicitationId = string & { readonly [CHECKED]: true };

function hasIdShape(value: unknown): value is ElicitationId {
  return typeof value === 'string' && ELICITATION_ID_PATTERN.test(value);
}

/** `value` as an elicitation id, or `undefined` when it has not the shape of one. */
export function parseElicitationId(value: unknown): ElicitationId | undefined {
  return hasIdShape(value) ? value : undefined;
}

/** The id of a record a store returned: checked where it came in (or made by `createUrlElicitation`), not again. */
export function idOf(record: { readonly id: string }): ElicitationId {
  return record.id as ElicitationId;
}
