/**
 * Approvals by a quorum (`kind: 'approval'`, #44) with the module's real parts: a confirm page per approver (the
 * requester left out), the quorum counted once per approver, a rejection deciding, a late approval changing nothing,
 * the status saying how many and never who, the audit naming each decision; on a shared store (Redis, PostgreSQL),
 * ten approvers on two instances at once move the approval exactly once. And `requestApproval` in a task.
 */
import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from '@jest/globals';
import type { TestingModule } from '@nestjs/testing';
import { Redis } from 'ioredis';
import type { ElicitationEvent } from '../../src/core/elicitation.types.js';
import { ElicitationEvents } from '../../src/events/elicitation-events.js';
import { ElicitationService } from '../../src/lifecycle/elicitation.service.js';
import type { ElicitationAuditRecord } from '../../src/options/audit-record.js';
import { ElicitationStore } from '../../src/stores/elicitation-store.js';
import { RedisElicitationStore } from '../../src/redis/redis.store.js';
import { PostgresElicitationStore } from '../../src/postgres/postgres.store.js';
import { settleRuns, taskRunnerOf } from '../support/task-runner.js';
import { compileElicitation } from '../support/testing-module.js';
import { describeRedis, REDIS_URL } from '../support/redis.js';
import { DATABASE_URL, describePostgres, dropPrefix } from '../support/postgres.js';
import pg from 'pg';

const ACTION = { tool: 'drop-table', args: { table: 'users', cascade: true } };

const refs: TestingModule[] = [];
afterEach(async () => {
  await Promise.all(refs.splice(0).map((r) => r.close()));
});

async function module(options: Parameters<typeof compileElicitation>[0] = {}) {
  const audit: ElicitationAuditRecord[] = [];
  const ref = await compileElicitation({ audit: (r) => void audit.push(r), ...options });
  refs.push(ref);
  return { ref, service: ref.get(ElicitationService), store: ref.get(ElicitationStore), audit };
}

/** The approvers' pages of an approval, by approver. */
async function pagesOf(store: ElicitationStore, approvalId: string, approvers: readonly string[]) {
  const pages = new Map<string, string>();
  for (const a of approvers) {
    const [page] = (await store.listByUser(a, Date.now())).filter((r) => r.type === `approval:${approvalId}`);
    if (page) pages.set(a, page.id);
  }
  return pages;
}

const until = async (check: () => Promise<boolean>, ms = 5_000) => {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error('not within time');
    await new Promise((r) => setTimeout(r, 10));
  }
};

describe('approvals by a quorum (memory store)', () => {
  const ask = (more: object = {}) => ({
    kind: 'approval' as const,
    message: 'Drop the users table?',
    userId: 'rita',
    approval: { approvers: ['rita', 'alice', 'bob', 'carol'], quorum: 2, action: ACTION, ...more },
  });

  it('opens a confirm page per approver but the requester, counts each approver once, and completes at the quorum', async () => {
    const { service, store, audit } = await module();
    const { elicitationId: id, url } = await service.createUrlElicitation(ask());
    expect(url).toBe(`https://mcp.example.com/elicit/${id}/approval`);
    const pages = await pagesOf(store, id, ['rita', 'alice', 'bob', 'carol']);
    expect([...pages.keys()]).toEqual(['alice', 'bob', 'carol']);
    const page = (await store.get(pages.get('alice')!, Date.now()))!;
    expect(page).toMatchObject({ kind: 'confirm', userId: 'alice', message: 'Drop the users table?' });
    expect(page.metadata.approval).toMatchObject({
      requester: 'rita',
      quorum: 2,
      tool: 'drop-table',
      shown: [
        ['table', 'users'],
        ['cascade', 'true'],
      ],
    });
    expect(page.expiresAt).toBeLessThanOrEqual((await store.get(id, Date.now()))!.expiresAt);

    expect((await service.complete(pages.get('alice')!, { confirmed: true })).ok).toBe(true);
    expect((await service.complete(pages.get('alice')!, { confirmed: true })).ok).toBe(false);
    await until(async () => (await service.getStatus(id))?.approvals?.approved === 1);
    expect(await service.getStatus(id)).toMatchObject({ status: 'pending', approvals: { approved: 1, required: 2 } });
    expect(JSON.stringify(await service.getStatus(id))).not.toContain('alice');

    expect((await service.complete(pages.get('bob')!, { confirmed: true })).ok).toBe(true);
    await until(async () => (await service.getResult(id))?.status === 'completed');
    const result = await service.getResult(id);
    expect(result).toMatchObject({ status: 'completed', data: { approved: true, approvedBy: ['alice', 'bob'] } });
    expect((result as unknown as { data: { hash: string } }).data.hash).toMatch(/^[0-9a-f]{64}$/);
    // Carol's page is closed; a late approval of hers changes nothing.
    await until(async () => (await service.getStatus(pages.get('carol')!))?.status === 'cancelled');
    expect((await service.complete(pages.get('carol')!, { confirmed: true })).ok).toBe(false);
    const decided = audit.filter((r) => r.event === 'approval.decided');
    expect(decided.map((r) => [r.userId, r.decision, r.via, r.elicitationId])).toEqual([
      ['alice', 'approved', 'api', id],
      ['bob', 'approved', 'api', id],
    ]);
    expect(decided[0].actionHash).toHaveLength(12);
  });

  it('one rejection declines it, and an approval after it changes nothing', async () => {
    const { service, store } = await module();
    const { elicitationId: id } = await service.createUrlElicitation(ask());
    const pages = await pagesOf(store, id, ['alice', 'bob', 'carol']);
    expect((await service.complete(pages.get('alice')!, { confirmed: true })).ok).toBe(true);
    expect((await service.decline(pages.get('bob')!)).ok).toBe(true);
    await until(async () => (await service.getResult(id))?.status === 'declined');
    await service.complete(pages.get('carol')!, { confirmed: true });
    await new Promise((r) => setTimeout(r, 50));
    expect(await service.getResult(id)).toEqual({ status: 'declined' });
  });

  it('counts the requester only when told to; refuses a quorum past the approvers, naming the field and the value', async () => {
    const { service, store } = await module();
    await expect(service.createUrlElicitation(ask({ quorum: 4 }))).rejects.toThrow(/approval\.quorum.*3 approver.*got 4/);
    await expect(service.createUrlElicitation({ ...ask(), approval: { approvers: [], quorum: 1 } })).rejects.toThrow(/approval\.quorum/);
    await expect(
      service.createUrlElicitation({ kind: 'confirm', message: 'x', userId: 'rita', approval: { approvers: ['a'] } }),
    ).rejects.toThrow(/approval.*only for kind "approval"/);
    const { elicitationId: id } = await service.createUrlElicitation(ask({ excludeRequester: false, quorum: 4 }));
    expect([...(await pagesOf(store, id, ['rita', 'alice', 'bob', 'carol'])).keys()]).toEqual(['rita', 'alice', 'bob', 'carol']);
  });

  it('rejectionsToDeny: 2 takes two rejections; a quorum reached first approves', async () => {
    const { service, store } = await module();
    const { elicitationId: id } = await service.createUrlElicitation(ask({ rejectionsToDeny: 2 }));
    const pages = await pagesOf(store, id, ['alice', 'bob', 'carol']);
    await service.decline(pages.get('alice')!);
    await new Promise((r) => setTimeout(r, 50));
    expect((await service.getStatus(id))?.status).toBe('pending');
    await service.complete(pages.get('bob')!, { confirmed: true });
    await service.complete(pages.get('carol')!, { confirmed: true });
    await until(async () => (await service.getResult(id))?.status === 'completed');
    expect(await service.getApproval(id)).toMatchObject({
      status: 'completed',
      rejectionsToDeny: 2,
      decisions: [{ userId: 'alice', decision: 'rejected' }, { decision: 'approved' }, { decision: 'approved' }],
    });
  });

  it('gives neither the approval nor its pages more time ("Need more time?"): its time is the tool\'s', async () => {
    const { service, store } = await module();
    const { elicitationId: id } = await service.createUrlElicitation(ask());
    const pages = await pagesOf(store, id, ['alice', 'bob', 'carol']);
    expect(await service.extend(id)).toEqual({ ok: false, reason: 'unsupported' });
    expect(await service.extend(pages.get('bob')!)).toEqual({ ok: false, reason: 'unsupported' });
    const page = (await store.get(pages.get('bob')!, Date.now()))!;
    expect(page.expiresAt).toBeLessThanOrEqual((await store.get(id, Date.now()))!.expiresAt);
    // Any other question still can.
    const other = await service.createUrlElicitation({ kind: 'confirm', message: 'Other?', userId: 'bob' });
    expect((await service.extend(other.elicitationId)).ok).toBe(true);
  });

  it('expires unanswered with its pages: silence never approves', async () => {
    const { service, store } = await module();
    const { elicitationId: id } = await service.createUrlElicitation({ ...ask(), ttlMs: 100 });
    const pages = await pagesOf(store, id, ['alice', 'bob', 'carol']);
    await new Promise((r) => setTimeout(r, 150));
    expect(await service.getResult(id)).toEqual({ status: 'expired' });
    expect((await service.complete(pages.get('alice')!, { confirmed: true })).ok).toBe(false);
  });

  it('requestApproval in a task: the requester waits on the approval page, and the task goes on once two approved', async () => {
    const { ref, service, store } = await module();
    const { tasks, view } = taskRunnerOf(ref, {
      'drop-table': async (_args, el) => {
        // The app's group, as a function of the call: the requester is left out by the module all the same.
        const approvers = ({ tool, args }: { tool?: string; args?: unknown }) =>
          tool === 'drop-table' && (args as { table: string }).table === 'users' ? ['alice', 'bob', 'carol', 'dave'] : [];
        const outcome = await el.requestApproval({ approvers, quorum: 2, message: 'Drop users?' });
        return `${outcome.status} by ${outcome.approvedBy?.join(' and ')} (${outcome.hash?.slice(0, 12)})`;
      },
    });
    const { task } = await tasks.start('drop-table', { table: 'users' }, 'alice', ['url']);
    await settleRuns();
    const waiting = await view(task.id);
    expect(waiting.status).toBe('input_required');
    const [request] = Object.values(waiting.inputRequests ?? {});
    expect(request.params).toMatchObject({ mode: 'url', message: 'Drop users?\n\n0 of 2 approvals: waiting for bob or carol or dave' });
    const approvalId = String(request.params.url).match(/elicit\/([0-9a-f-]{36})\/approval$/)![1];
    const pages = await pagesOf(store, approvalId, ['alice', 'bob', 'carol', 'dave']);
    expect([...pages.keys()]).toEqual(['bob', 'carol', 'dave']);
    expect((await store.get(pages.get('bob')!, Date.now()))!.metadata.approval).toMatchObject({
      tool: 'drop-table',
      shown: [['table', 'users']],
    });
    await service.complete(pages.get('dave')!, { confirmed: true });
    await service.complete(pages.get('bob')!, { confirmed: true });
    await until(async () => (await service.getResult(approvalId))?.status === 'completed');
    const record = await service.getApproval(approvalId);
    expect(record).toMatchObject({
      status: 'completed',
      quorum: 2,
      waiting: [],
      decisions: [{ decision: 'approved' }, { decision: 'approved' }],
    });
    expect(record!.decisions.map((d) => d.userId).sort()).toEqual(['bob', 'dave']);
    expect(record!.hash).toMatch(/^[0-9a-f]{64}$/);
    expect(await service.getApproval(pages.get('bob')!)).toBeUndefined();
    tasks.pageFinished(task.id);
    await settleRuns();
    await until(async () => (await view(task.id)).status === 'completed');
    expect((await view(task.id)).result?.content[0].text).toMatch(/^approved by (dave and bob|bob and dave) \([0-9a-f]{12}\)$/);
  });
});

/** Ten approvers at once, on two instances sharing `makeStore()`'s store: the approval moves exactly once. */
function concurrent(makeStore: () => Promise<ElicitationStore>) {
  it('ten approvers approving at once on two instances, quorum 2: one completion, each approver counted once', async () => {
    const key = Buffer.alloc(32, 9);
    const a = await module({ store: await makeStore(), encryptionKey: key });
    const b = await module({ store: await makeStore(), encryptionKey: key });
    const heard: ElicitationEvent[] = [];
    a.ref.get(ElicitationEvents).subscribe((e) => heard.push(e));
    const approvers = Array.from({ length: 10 }, (_, i) => `approver-${randomUUID().slice(0, 6)}-${i}`);
    const { elicitationId: id } = await a.service.createUrlElicitation({
      kind: 'approval',
      message: 'Drop?',
      userId: 'rita',
      approval: { approvers, quorum: 2, action: ACTION },
    });
    const pages = await pagesOf(a.store, id, approvers);
    expect(pages.size).toBe(10);
    await Promise.all(approvers.map((who, i) => (i % 2 ? a : b).service.complete(pages.get(who)!, { confirmed: true })));
    await until(async () => (await a.service.getResult(id))?.status === 'completed', 10_000);
    await new Promise((r) => setTimeout(r, 300));
    expect(heard.filter((e) => e.elicitationId === id && e.type === 'completed')).toHaveLength(1);
    const data = ((await b.service.getResult(id)) as { data: { approvedBy: string[] } }).data;
    expect(data.approvedBy.length).toBeGreaterThanOrEqual(2);
    expect(new Set(data.approvedBy).size).toBe(data.approvedBy.length);
  }, 20_000);
}

describeRedis('approvals on a shared Redis', () => {
  const prefix = `approvals-${randomUUID().slice(0, 8)}`;
  const clients: Redis[] = [];
  afterEach(() => clients.splice(0).forEach((c) => c.disconnect()));
  concurrent(() => {
    const client = new Redis(REDIS_URL);
    clients.push(client);
    return Promise.resolve(new RedisElicitationStore(client, { keyPrefix: prefix }));
  });
});

describePostgres('approvals on a shared PostgreSQL', () => {
  const prefix = `ap${randomUUID().slice(0, 6).replace(/-/g, '')}_`;
  const pools: pg.Pool[] = [];
  afterEach(async () => {
    const cleanup = new pg.Pool({ connectionString: DATABASE_URL });
    await dropPrefix(cleanup, prefix).catch(() => undefined);
    await cleanup.end();
    await Promise.all(pools.splice(0).map((p) => p.end().catch(() => undefined)));
  });
  concurrent(async () => {
    const pool = new pg.Pool({ connectionString: DATABASE_URL });
    pools.push(pool);
    const store = new PostgresElicitationStore(pool, { tablePrefix: prefix });
    await store.createSchema();
    return store;
  });
});
