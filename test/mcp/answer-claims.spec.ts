/**
 * One approval runs a tool once (#28): an answer is claimed by exactly one tool call, through the store's atomic
 * counter, on every store (with or without the optional `peekHits`) and across instances on Redis. Calls that
 * waited on the same page, or found the same answered question, and lost the claim ask anew. Real SDK 1.x
 * clients and servers (2025-11-25); the 2026-07-28 side is in `input-required.spec.ts`.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from '@jest/globals';
import type { TestingModule } from '@nestjs/testing';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { ElicitationService } from '../../src/lifecycle/elicitation.service.js';
import { McpElicitation } from '../../src/mcp/mcp-elicitation.js';
import { LinkedQuestions } from '../../src/mcp/questions/linked-questions.js';
import type { ElicitationModuleOptions } from '../../src/options/elicitation-options.interface.js';
import { RedisElicitationStore } from '../../src/redis/redis.store.js';
import { MemoryElicitationStore } from '../../src/stores/memory.store.js';
import { describeRedis, REDIS_URL } from '../support/redis.js';
import { compileElicitation } from '../support/testing-module.js';

type Caps = Record<string, object> | undefined;
const textOf = (result: unknown) => ((result as { content: Array<{ text: string }> }).content ?? []).map((c) => c.text).join('');

/** A memory store that offers no `peekHits` (the optional member): the claim must not depend on it. */
function storeWithoutPeek(): MemoryElicitationStore {
  const store = new MemoryElicitationStore();
  Object.defineProperty(store, 'peekHits', { value: undefined });
  return store;
}

const modules: TestingModule[] = [];
const clients: Client[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
  await Promise.all(modules.splice(0).map((m) => m.close()));
});

/** One instance of the app: the module, and `approve-deploy` on a real SDK 1.x server; `deploys` counts what ran. */
async function instance(options: Partial<ElicitationModuleOptions> = {}) {
  const ref = await compileElicitation({ resolveMcpUser: () => 'alice', ...options });
  modules.push(ref);
  const deploys: string[] = [];
  const serve = async (caps: Caps, onUrl?: (id: string) => void) => {
    const server = new McpServer({ name: 'deploys', version: '1.0.0' });
    ref.get(McpElicitation).registerTool(server, 'approve-deploy', { inputSchema: z.object({ app: z.string() }) }, async ({ app }, el) => {
      const outcome = await el.requestUrl({ kind: 'confirm', type: 'deploy-approval', message: `Deploy ${app}?` });
      if (outcome.status !== 'completed') return { content: [{ type: 'text' as const, text: `Not deployed (${outcome.status})` }] };
      deploys.push(app);
      return { content: [{ type: 'text' as const, text: `Deployed ${app}` }] };
    });
    const client = new Client({ name: 'c', version: '1.0.0' }, { capabilities: caps ? { elicitation: caps } : {} });
    if (caps)
      client.setRequestHandler(ElicitRequestSchema, (request) => {
        const params = request.params as { elicitationId?: string };
        if (params.elicitationId) onUrl?.(params.elicitationId);
        return Promise.resolve({ action: 'accept' as const });
      });
    const [a, b] = InMemoryTransport.createLinkedPair();
    await Promise.all([server.connect(a), client.connect(b)]);
    clients.push(client);
    return (app = 'prod') => client.callTool({ name: 'approve-deploy', arguments: { app } });
  };
  return { ref, service: ref.get(ElicitationService), deploys, serve };
}

async function until(check: () => boolean | Promise<boolean>, what: string): Promise<void> {
  for (let i = 0; i < 400; i++) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error(`timed out waiting for ${what}`);
}

const idOf = (result: unknown) =>
  (result as { _meta: Record<string, { elicitationId: string }> })._meta['nestjs-mcp-elicitation/pending'].elicitationId;

describe('one approval runs a tool once', () => {
  it('2025-11-25, URL mode: four overlapping calls wait on one page; one confirm deploys once, the others ask anew', async () => {
    const app = await instance();
    const shown: string[] = [];
    const call = await app.serve({ form: {}, url: {} }, (id) => shown.push(id));
    const first = call();
    await until(() => shown.length === 1, 'the first page');
    const others = [call(), call(), call()];
    // The three later calls take up the first call's pending page (no new elicitation).
    await until(() => shown.length === 4, 'the page shown to every call');
    expect(new Set(shown).size).toBe(1);

    expect((await app.service.complete(shown[0], { confirmed: true })).ok).toBe(true);
    // Exactly one call claims the approval; each of the other three asks anew, on a page of its own.
    await until(() => shown.length === 7, 'three new pages');
    const fresh = shown.slice(4);
    expect(new Set(fresh).size).toBe(3);
    expect(fresh).not.toContain(shown[0]);
    for (const id of fresh) await app.service.decline(id);
    const texts = (await Promise.all([first, ...others])).map(textOf).sort();
    expect(texts).toEqual(['Deployed prod', 'Not deployed (declined)', 'Not deployed (declined)', 'Not deployed (declined)']);
    expect(app.deploys).toEqual(['prod']);
  });

  it('the link rung on a store without peekHits: one approval answers one later call; the next ones get a new link', async () => {
    const app = await instance({ store: storeWithoutPeek() });
    const call = await app.serve(undefined);
    const asked = await call();
    const page = idOf(asked);
    expect((await app.service.complete(page, { confirmed: true })).ok).toBe(true);

    expect(textOf(await call())).toBe('Deployed prod');
    const second = await call();
    const third = await call();
    expect(textOf(second)).toContain('open it in their browser');
    expect(idOf(second)).not.toBe(page);
    // The new link is pending: the third call is given the same one again, not a deploy.
    expect(idOf(third)).toBe(idOf(second));
    expect(app.deploys).toEqual(['prod']);
  });

  it('a declined page is passed over by later calls too (no peekHits): they get a new link', async () => {
    const app = await instance({ store: storeWithoutPeek() });
    const call = await app.serve(undefined);
    const page = idOf(await call());
    await app.service.decline(page);
    expect(textOf(await call())).toBe('Not deployed (declined)');
    const again = await call();
    expect(idOf(again)).not.toBe(page);
    expect(app.deploys).toEqual([]);
  });
});

describeRedis('one approval runs a tool once, across instances on Redis', () => {
  it('five parallel identical calls on two instances after one approval through the link rung: one deploys', async () => {
    const keyPrefix = `claims-${randomUUID().slice(0, 8)}`;
    const encryptionKey = randomBytes(32).toString('base64');
    const shared = (): Partial<ElicitationModuleOptions> => ({ encryptionKey, store: new RedisElicitationStore(REDIS_URL, { keyPrefix }) });
    const one = await instance(shared());
    const two = await instance(shared());
    const [callOne, callTwo] = [await one.serve(undefined), await two.serve(undefined)];
    const page = idOf(await callOne());
    expect((await two.service.complete(page, { confirmed: true })).ok).toBe(true);

    const results = await Promise.all([callOne(), callTwo(), callOne(), callTwo(), callOne()]);
    const deployed = results.filter((r) => textOf(r) === 'Deployed prod');
    expect(deployed).toHaveLength(1);
    expect([...one.deploys, ...two.deploys]).toEqual(['prod']);
    // The four others were given a link to a new question, never the approved one.
    for (const r of results.filter((x) => textOf(x) !== 'Deployed prod')) expect(idOf(r)).not.toBe(page);
  });
});

describe('an answer handed on to the continuation (LinkedQuestions.handOver)', () => {
  it('allows exactly one more claim per hand-over, however many calls race for it', async () => {
    const ref = await compileElicitation({ resolveMcpUser: () => 'alice' });
    modules.push(ref);
    const service = ref.get(ElicitationService);
    const linked = ref.get(LinkedQuestions);
    const { elicitationId } = await service.createUrlElicitation({ kind: 'confirm', message: 'Go?', userId: 'alice' });
    expect((await service.complete(elicitationId, { confirmed: true })).ok).toBe(true);
    // The call that took it first.
    expect(await linked.claim(elicitationId)).toBe(true);
    expect(await linked.claim(elicitationId)).toBe(false);
    // That call ended at a later question's link: the tool's next call may take it once more, one call only.
    await linked.handOver([elicitationId]);
    const racing = await Promise.all(Array.from({ length: 5 }, () => linked.claim(elicitationId)));
    expect(racing.filter(Boolean)).toHaveLength(1);
  });
});
