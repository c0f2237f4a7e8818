import { randomUUID } from 'node:crypto';
import type { ElicitationRecord } from '../core/elicitation.types.js';
import { sweepReportOf, type ElicitationRecordStore } from '../stores/elicitation-store.js';

/** The time the suites' records are created at (epoch milliseconds). */
export const T0 = 1_800_000_000_000;
/** The suites' records' lifetime, in milliseconds. */
export const TTL = 60_000;
/** The suites' retention after a record finishes, in milliseconds. */
export const RETENTION = 30_000;

/** A pending record created at `createdAt` (defaults: T0, user u1, type api-key). */
export function pendingRecord(overrides: Partial<ElicitationRecord> = {}): ElicitationRecord {
  const createdAt = overrides.createdAt ?? T0;
  const expiresAt = overrides.expiresAt ?? createdAt + TTL;
  return {
    id: randomUUID(),
    kind: 'api-key',
    userId: 'u1',
    type: 'api-key',
    message: 'Enter your key',
    metadata: { service: 'github' },
    status: 'pending',
    createdAt,
    expiresAt,
    purgeAt: expiresAt + RETENTION,
    ...overrides,
  };
}

/** The records `store.sweep` expired, whether it resolved them as they are or with its report (`SweepReport`). */
export async function swept(
  store: ElicitationRecordStore,
  now: number,
  retentionMs: number,
): Promise<ReadonlyArray<Readonly<ElicitationRecord>>> {
  return sweepReportOf(await store.sweep(now, retentionMs)).expired;
}

/** The matchers the suites use, resolving `R` (jest's and vitest's `expect` both have them). */
export interface ContractMatchers<R> {
  toBe(expected: unknown): R;
  toEqual(expected: unknown): R;
  toMatchObject(expected: object): R;
  toHaveLength(length: number): R;
  toContain(item: unknown): R;
  toBeDefined(): R;
  toBeUndefined(): R;
  toBeGreaterThan(expected: number): R;
  toBeLessThanOrEqual(expected: number): R;
}

/** What `expect(actual)` returns: the matchers, negated with `not`, on a promise's value with `resolves`. */
export interface ContractAssertion extends ContractMatchers<void> {
  readonly not: ContractMatchers<void>;
  readonly resolves: ContractMatchers<Promise<void>>;
}

/** A test body of the suites. */
export type ContractTestFn = () => Promise<unknown>;

/** The runner's `it`, with `it.skip` (reports the tests of optional members a store lacks as skipped). */
export interface ContractIt {
  (name: string, fn: ContractTestFn, timeout?: number): unknown;
  skip(name: string, fn: ContractTestFn): unknown;
}

/**
 * The test functions the suites need: pass your runner's (jest: `import { describe, it, expect, beforeEach,
 * afterAll } from '@jest/globals'`; vitest: `from 'vitest'`). `expect` needs jest-style matchers.
 */
export interface ContractTestApi {
  describe: (name: string, fn: () => void) => unknown;
  it: ContractIt;
  expect: (actual: unknown) => ContractAssertion;
  beforeEach: (fn: () => Promise<void>) => unknown;
  afterAll: (fn: () => Promise<void> | void) => unknown;
}

/**
 * The optional members of a store: `findByAskKey`, `extend`, `ping`, `openEventChannel`, `announceKeyRing`, the
 * tasks (`createTask`, `getTask`, `putTask`, offered together; `getTasks` with them), the call states (`keepCallState`, `takeCallState`,
 * together), the passkeys (`addPasskey`, `getPasskey`, `listPasskeys`, `removePasskey`, `usePasskey`, together) and the
 * audit chains (`lastAuditLink`, `appendAuditLink`, `readAuditLinks`, together) of the record side, `peekHits` of the
 * counters.
 */
export type OptionalStoreMember =
  | 'peekHits'
  | 'findByAskKey'
  | 'extend'
  | 'ping'
  | 'openEventChannel'
  | 'announceKeyRing'
  | 'createTask'
  | 'getTask'
  | 'getTasks'
  | 'putTask'
  | 'keepCallState'
  | 'takeCallState'
  | 'listOpen'
  | 'addNotices'
  | 'claimNotices'
  | 'settleNotice'
  | 'noticeStats'
  | 'addPasskey'
  | 'getPasskey'
  | 'listPasskeys'
  | 'removePasskey'
  | 'usePasskey'
  | 'lastAuditLink'
  | 'appendAuditLink'
  | 'readAuditLinks';

/** Options of the contract suites. */
export interface ContractSuiteOptions {
  /** Runs once after the suite's tests (to close connections or delete keys, say). */
  afterAll?: () => Promise<void> | void;
  /**
   * The optional members your store offers. Their tests run; the tests of the others are reported as
   * skipped. When given, a test checks that the store offers exactly these (of the members the suite covers).
   * The list is needed up front because tests are collected before `makeStore` runs.
   * @default undefined (the tests of every optional member are reported as skipped)
   */
  offers?: readonly OptionalStoreMember[];
}

/**
 * Registers the test of an optional member: `it` when the store offers it, `it.skip` (named with the reason)
 * when it does not, so a missing member shows in the runner's report instead of passing silently.
 */
export function itIfOffered(
  api: ContractTestApi,
  offers: ContractSuiteOptions['offers'],
  member: OptionalStoreMember,
  name: string,
  fn: ContractTestFn,
): void {
  if (offers?.includes(member)) api.it(name, fn);
  else api.it.skip(`${name} [skipped: ${offers ? `the store does not offer ${member}` : 'options.offers not given'}]`, fn);
}

/**
 * When `offers` is given, a test that the store has exactly the listed members of `members` (functions
 * where listed, absent where not).
 */
export function itOffersExactly(
  api: ContractTestApi,
  offers: ContractSuiteOptions['offers'],
  members: readonly OptionalStoreMember[],
  store: () => Partial<Record<OptionalStoreMember, unknown>>,
): void {
  if (!offers) return;
  api.it(`offers exactly the optional members listed in options.offers (of ${members.join(', ')})`, () => {
    const offered = members.filter((m) => typeof store()[m] === 'function');
    api.expect(offered).toEqual(members.filter((m) => offers.includes(m)));
    return Promise.resolve();
  });
}

/** A test body of a group: given the store `makeStore` made for the test. */
export type StoreTestFn<S> = (store: S) => Promise<unknown>;

/**
 * What a group of the suites (records, extend, key ring, events, counters: a file each, as keyv's test suite is
 * split) registers its tests with. `it` and `itIfOffered` hand each body the store made for that test.
 */
export interface ContractGroupApi<S> {
  /** The store made for the running test. */
  readonly store: () => S;
  readonly it: (name: string, fn: StoreTestFn<S>) => void;
  readonly itIfOffered: (member: OptionalStoreMember, name: string, fn: StoreTestFn<S>) => void;
  readonly expect: ContractTestApi['expect'];
}

/** Makes a fresh store before every test of the enclosing `describe`, for the groups registered in it. */
export function contractGroupApi<S>(
  api: ContractTestApi,
  offers: ContractSuiteOptions['offers'],
  makeStore: () => S | Promise<S>,
): ContractGroupApi<S> {
  let made: { store: S } | undefined;
  api.beforeEach(async () => {
    made = { store: await makeStore() };
  });
  const store = (): S => {
    if (!made) throw new Error('no store yet: the suites make one before each test');
    return made.store;
  };
  return {
    store,
    it: (name, fn) => {
      api.it(name, () => fn(store()));
    },
    itIfOffered: (member, name, fn) => itIfOffered(api, offers, member, name, () => fn(store())),
    expect: api.expect,
  };
}
