/**
 * `ElicitationService.listOpen` (#43, the inbox): a user's open questions newest first, paged, one store query per page,
 * through the store's `listOpen` or, on a store without it, its `listByUser`, with the same pages either way; what a
 * question carries (never the answer, no metadata beyond `askedBy`); the checks of its arguments.
 */
import { afterEach, describe, expect, it, jest } from '@jest/globals';
import type { TestingModule } from '@nestjs/testing';
import { ElicitationService } from '../../src/lifecycle/elicitation.service.js';
import { ElicitationInputError } from '../../src/errors/elicitation-input.error.js';
import { MemoryElicitationStore } from '../../src/stores/memory.store.js';
import { compileElicitation } from '../support/testing-module.js';

/** The memory store as a store without the optional `listOpen` (only `listByUser`). */
function storeWithoutListOpen(): MemoryElicitationStore {
  const store = new MemoryElicitationStore();
  Object.defineProperty(store, 'listOpen', { value: undefined });
  return store;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe.each([
  ['the store offers listOpen', () => new MemoryElicitationStore(), 'listOpen'],
  ['a store without listOpen (listByUser, paged by the module)', storeWithoutListOpen, 'listByUser'],
] as const)('ElicitationService.listOpen: %s', (_name, makeStore, query) => {
  let ref: TestingModule;
  let service: ElicitationService;
  let store: MemoryElicitationStore;
  /** The store's one query of a user's open questions: its `listOpen`, else `listByUser` (spied on before the module reads it). */
  let queries: { mockClear(): unknown };

  const setUp = async () => {
    store = makeStore();
    queries = jest.spyOn(store, query);
    ref = await compileElicitation({ store });
    service = ref.get(ElicitationService);
  };
  afterEach(async () => {
    await ref.close();
  });

  /** Creates `count` questions for `userId`, each a millisecond or more after the one before; resolves their ids, oldest first. */
  async function ask(userId: string, count: number): Promise<string[]> {
    const ids: string[] = [];
    for (let i = 0; i < count; i++) {
      ids.push((await service.createUrlElicitation({ kind: 'confirm', message: `Question ${i}`, userId })).elicitationId);
      await sleep(2);
    }
    return ids;
  }

  it('pages the open questions newest first, one store query per page, until no next', async () => {
    await setUp();
    const ids = await ask('alice', 5);
    await ask('bob', 2);
    queries.mockClear();
    const first = await service.listOpen('alice', { limit: 2 });
    const second = await service.listOpen('alice', { limit: 2, after: first.next });
    const third = await service.listOpen('alice', { limit: 2, after: second.next });
    expect([first, second, third].map((page) => page.questions.map((q) => q.elicitationId))).toEqual([
      [ids[4], ids[3]],
      [ids[2], ids[1]],
      [ids[0]],
    ]);
    expect(typeof first.next).toBe('string');
    expect(typeof second.next).toBe('string');
    expect(third.next).toBeUndefined();
    expect(queries).toHaveBeenCalledTimes(3);
    // The default page holds 20: all five, and no next.
    const whole = await service.listOpen('alice');
    expect(whole.questions.map((q) => q.elicitationId)).toEqual([...ids].reverse());
    expect(whole).not.toHaveProperty('next');
  });

  it('holds what the inbox shows of each question, never the answer or other metadata', async () => {
    await setUp();
    const before = Date.now();
    const { elicitationId, url, expiresAt } = await service.createUrlElicitation({
      kind: 'api-key',
      message: 'Enter your GitHub key',
      userId: 'alice',
      metadata: { askedBy: { tool: 'open-pr', client: 'Claude Code' }, team: 'platform' },
      taskId: 'task-1',
    });
    await sleep(2);
    const plain = await service.createUrlElicitation({ kind: 'confirm', message: 'Deploy?', userId: 'alice', metadata: { team: 'x' } });
    const { questions } = await service.listOpen('alice');
    expect(questions).toEqual([
      {
        elicitationId: plain.elicitationId,
        kind: 'confirm',
        message: 'Deploy?',
        url: plain.url,
        createdAt: expect.any(Date),
        expiresAt: plain.expiresAt,
      },
      {
        elicitationId,
        kind: 'api-key',
        message: 'Enter your GitHub key',
        url,
        createdAt: expect.any(Date),
        expiresAt,
        taskId: 'task-1',
        askedBy: { tool: 'open-pr', client: 'Claude Code' },
      },
    ]);
    expect(questions[1].createdAt.getTime()).toBeGreaterThanOrEqual(before);
  });

  it('leaves out what was answered, declined, cancelled or is past its expiry, and every other user', async () => {
    await setUp();
    const [answered, declined, cancelled, open] = await ask('alice', 4);
    const overdue = await service.createUrlElicitation({ kind: 'confirm', message: 'Soon gone', userId: 'alice', ttlMs: 20 });
    await ask('bob', 1);
    await service.complete(answered, { confirmed: true });
    await service.decline(declined);
    await service.cancel(cancelled);
    await sleep(30);
    // Not swept yet: the store still has it pending, and the list leaves it out by its expiry.
    expect((await service.getStatus(overdue.elicitationId))?.status).toBe('expired');
    expect((await service.listOpen('alice')).questions.map((q) => q.elicitationId)).toEqual([open]);
    expect((await service.listOpen('nobody')).questions).toEqual([]);
  });

  it.each([
    [0, /"limit" must be a whole number from 1 to 100 \(got 0\)/],
    [101, /\(got 101\)/],
    [2.5, /\(got 2\.5\)/],
    [Number.NaN, /\(got NaN\)/],
    ['5', /\(got string\)/],
  ])('refuses limit %p with an ElicitationInputError naming it', async (limit, message) => {
    await setUp();
    const listing = service.listOpen('alice', { limit: limit as number });
    await expect(listing).rejects.toThrow(ElicitationInputError);
    await expect(listing).rejects.toThrow(message);
    await expect(listing).rejects.toMatchObject({ field: 'limit' });
  });

  it('accepts limits 1 and 100; refuses an empty user and a cursor that is no string', async () => {
    await setUp();
    await ask('alice', 2);
    expect((await service.listOpen('alice', { limit: 1 })).questions).toHaveLength(1);
    expect((await service.listOpen('alice', { limit: 100 })).questions).toHaveLength(2);
    await expect(service.listOpen('')).rejects.toMatchObject({ field: 'userId' });
    await expect(service.listOpen('alice', { after: 42 as unknown as string })).rejects.toMatchObject({ field: 'after' });
    // A cursor of no store's making starts the list over.
    expect((await service.listOpen('alice', { after: 'not-a-cursor' })).questions).toHaveLength(2);
  });
});
