/**
 * The fallback ladder inside the binding, with a real SDK 1.x McpServer and Client linked in process (2025-11-25):
 * the rules (which rung fits, the option checks), the client policy, instant declines, the form bridge, the
 * link rung and its spending, the model rung's refusals and the keep-alive progress.
 */
import { afterEach, describe, expect, it } from '@jest/globals';
import type { TestingModule } from '@nestjs/testing';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { ElicitRequest, ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import type { ElicitationModuleOptions } from '../../src/options/elicitation-options.interface.js';
import { resolveElicitationOptions } from '../../src/options/elicitation-options.validation.js';
import { defineForm } from '../../src/forms/define-form.js';
import { descend, fits, type FallbackRung, type McpClientProfile } from '../../src/options/client-ladder.js';
import { composeClientPolicy } from '../../src/options/client-profiles.js';
import { PENDING_QUESTION_META_KEY } from '../../src/mcp/questions/linked-questions.js';
import { McpElicitation } from '../../src/mcp/mcp-elicitation.js';
import { compileElicitation } from '../support/testing-module.js';
import { ladderSession, type LadderHandler } from '../support/ladder-session.js';

const text = (result: unknown) => (result as { content: Array<{ text: string }> }).content.map((c) => c.text).join('');
const pageUrl = (s: string) => /(https:\/\/mcp\.example\.com\/elicit\/[0-9a-f-]{36}\/[a-z-]+)/.exec(s)?.[1];
const idOf = (url: string) => url.split('/').at(-2)!;

const secretForm = defineForm({ type: 'object', properties: { password: { type: 'string' } } }, { secretFields: ['password'] });

type Handler = LadderHandler;

describe('fallback ladder rules', () => {
  const question = (supports: Array<'form' | 'url'>, extra: Partial<Parameters<typeof fits>[1]> = {}) => ({
    supports: (mode: 'form' | 'url') => supports.includes(mode),
    form: false,
    secret: false,
    linkable: true,
    modelAnswerable: false,
    ...extra,
  });

  it('fits each rung to what the client and the question allow', () => {
    expect(fits('url', question(['form']))).toBe(false);
    expect(fits('form-bridge', question(['form']))).toBe(true);
    expect(fits('form', question(['form']))).toBe(false); // a page question never takes form mode
    expect(fits('form', question(['form'], { form: true, secret: true }))).toBe(false);
    expect(fits('form', question(['form'], { form: true }))).toBe(true);
    expect(fits('link', question([], { linkable: false }))).toBe(false);
    expect(fits('model', question([], { form: true, modelAnswerable: true }))).toBe(true);
    expect(fits('model', question([], { form: true, secret: true, modelAnswerable: true }))).toBe(false);
    expect(fits('error', question([]))).toBe(true);
  });

  it('descends to the first rung that answers, skipping client dialogs after an instant decline, and stops at error', async () => {
    const tried: FallbackRung[] = [];
    const step = (rung: FallbackRung) => {
      tried.push(rung);
      return Promise.resolve(rung === 'url' ? ('cannot-ask' as const) : { done: rung });
    };
    expect(await descend(['url', 'form-bridge', 'link'], () => true, step)).toBe('link');
    expect(tried).toEqual(['url', 'link']);
    expect(
      await descend(
        ['url', 'error', 'link'],
        () => true,
        () => Promise.resolve('next' as const),
      ),
    ).toBeUndefined();
  });

  it.each<[string, Partial<ElicitationModuleOptions>, RegExp]>([
    ['an unknown page rung', { fallback: { page: ['url', 'form'] as never } }, /fallback\.page.*"form"/],
    ['a rung after error', { fallback: { form: ['form', 'error', 'link'] } }, /fallback\.form.*must end at 'error'/],
    ['a duplicate', { fallback: { page: ['url', 'url'] } }, /fallback\.page.*twice/],
    ['an empty list', { fallback: { form: [] } }, /fallback\.form.*non-empty/],
    ['a policy that is no function', { clientPolicy: 'drop-url' as never }, /clientPolicy/],
    ['a negative instantDeclineMs', { instantDeclineMs: -1 }, /instantDeclineMs/],
    ['a fractional keepAliveMs', { keepAliveMs: 1.5 }, /keepAliveMs/],
  ])('refuses %s at start-up, naming the option', (_, options, message) => {
    expect(() => resolveElicitationOptions({ baseUrl: 'https://x.example', ...options }, 'elicit', {})).toThrow(message);
  });

  it('defaults: page questions url → form-bridge → link, forms form → url → link, no instant decline, keep-alive 15 s', () => {
    const { options } = resolveElicitationOptions({ baseUrl: 'https://x.example' }, 'elicit', {});
    expect(options.fallback).toEqual({ page: ['url', 'form-bridge', 'link'], form: ['form', 'url', 'link'] });
    expect(options.instantDeclineMs).toBe(0);
    expect(options.keepAliveMs).toBe(15_000);
  });
});

describe('fallback ladder in a tool call (2025-11-25, SDK 1.x in process)', () => {
  let ref: TestingModule | undefined;
  const clients: Client[] = [];

  let closing: (() => Promise<void>) | undefined;

  afterEach(async () => {
    await closing?.();
    [ref, closing] = [closing ? undefined : ref, undefined];
    await Promise.all(clients.splice(0).map((c) => c.close()));
    await ref?.close();
    ref = undefined;
  });

  /** A real McpServer whose `deploy` tool is registered through the binding, and a client with `caps`. */
  async function setup(
    caps: Record<string, object> | null,
    handler: Handler,
    options: Partial<ElicitationModuleOptions> = {},
    user = 'alice',
  ) {
    const session = await ladderSession(caps, handler, options, user);
    ref = session.ref;
    closing = session.close;
    return session;
  }

  const approve: Handler = async ({ app }, el) => {
    const outcome = await el.requestUrl({ kind: 'confirm', message: `Deploy ${app}?` });
    return outcome.status === 'completed' ? `Deployed ${app} via ${outcome.via}` : `Not deployed (${outcome.status} via ${outcome.via})`;
  };

  it('form-only client: the bridge carries the page URL; the page answered while the form is open continues the same call', async () => {
    const { service, connect } = await setup({}, approve);
    let seen: ElicitRequest['params'] | undefined;
    const client = await connect(async (params) => {
      seen = params;
      // The person answers on the page; the server then withdraws the form (the client never replies).
      await service.complete(idOf(pageUrl(params.message)!), { confirmed: true });
      return new Promise<ElicitResult>(() => undefined);
    });
    const result = await client.callTool({ name: 'deploy', arguments: { app: 'shop' } });
    expect(text(result)).toBe('Deployed shop via form-bridge');
    expect(seen).toMatchObject({
      mode: 'form',
      requestedSchema: { properties: { finished: { type: 'boolean' } }, required: ['finished'] },
    });
    expect(seen!.message).toContain('Deploy shop?');
  });

  it('form bridge: "finished" without an answer on the page is asked again, then the question falls to a link', async () => {
    const { service, connect } = await setup({}, approve);
    const messages: string[] = [];
    const client = await connect((params) => {
      messages.push(params.message);
      return { action: 'accept', content: { finished: true } };
    });
    const result = await client.callTool({ name: 'deploy', arguments: { app: 'shop' } });
    expect(messages).toHaveLength(3); // limits.maxFormAttempts
    expect(messages[1]).toContain('does not have your answer yet');
    expect(result.isError).toBeFalsy();
    const url = pageUrl(text(result))!;
    expect(url).toBe(pageUrl(messages[0]));
    expect((result._meta as Record<string, unknown>)[PENDING_QUESTION_META_KEY]).toEqual({
      elicitationId: idOf(url),
      url,
      status: 'pending',
    });
    expect((await service.getStatus(idOf(url)))?.status).toBe('pending');
  });

  it('form bridge: a decline declines the elicitation and the tool gets it', async () => {
    const { service, connect } = await setup({}, approve);
    let url = '';
    const client = await connect((params) => {
      url = pageUrl(params.message)!;
      return { action: 'decline' };
    });
    expect(text(await client.callTool({ name: 'deploy', arguments: { app: 'shop' } }))).toBe('Not deployed (declined via form-bridge)');
    expect((await service.getStatus(idOf(url)))?.status).toBe('declined');
  });

  it('client without elicitation: a link; the same URL until answered; the answer once; then a new question', async () => {
    const { service, connect } = await setup(null, approve);
    const client = await connect();
    const first = await client.callTool({ name: 'deploy', arguments: { app: 'shop' } });
    const url = pageUrl(text(first))!;
    expect(text(first)).toContain('call the tool "deploy" again with the same arguments');
    expect(first.structuredContent).toEqual({ elicitationId: idOf(url), url, status: 'pending', instructions: text(first) });
    const again = await client.callTool({ name: 'deploy', arguments: { app: 'shop' } });
    expect(pageUrl(text(again))).toBe(url);
    expect(await service.list({ userId: 'alice' })).toHaveLength(1);
    // Other arguments are another question.
    expect(pageUrl(text(await client.callTool({ name: 'deploy', arguments: { app: 'blog' } })))).not.toBe(url);

    await service.complete(idOf(url), { confirmed: true });
    expect(text(await client.callTool({ name: 'deploy', arguments: { app: 'shop' } }))).toBe('Deployed shop via link');
    // Spent: an approval is never reused by a later call.
    const later = await client.callTool({ name: 'deploy', arguments: { app: 'shop' } });
    expect(pageUrl(text(later))).toMatch(/\/confirm$/);
    expect(pageUrl(text(later))).not.toBe(url);
  });

  it("a link is never another user's: the same tool and arguments from bob ask bob anew", async () => {
    const { service, connect } = await setup(null, approve);
    const alice = await connect();
    const bob = await connect(undefined, 'bob');
    const aliceUrl = pageUrl(text(await alice.callTool({ name: 'deploy', arguments: { app: 'shop' } })))!;
    await service.complete(idOf(aliceUrl), { confirmed: true });
    const bobResult = await bob.callTool({ name: 'deploy', arguments: { app: 'shop' } });
    expect(pageUrl(text(bobResult))).not.toBe(aliceUrl);
    expect(text(bobResult)).not.toContain('Deployed');
    expect((await service.getResult(idOf(aliceUrl)))?.status).toBe('completed');
  });

  it('instantDeclineMs: a client that declines at once gets a link instead of a decline; without it, a decline', async () => {
    for (const [instantDeclineMs, expected] of [
      [0, /^Not deployed \(declined via url\)$/],
      [5_000, /\/confirm/],
    ] as const) {
      const { connect } = await setup({ form: {}, url: {} }, approve, { instantDeclineMs });
      const client = await connect(() => ({ action: 'decline' }));
      expect(text(await client.callTool({ name: 'deploy', arguments: { app: 'shop' } }))).toMatch(expected);
      await closing?.();
    }
  });

  it('a retry takes up the page an earlier call gave out (instant decline → link → answered → retry) without a new elicitation', async () => {
    const { service, connect } = await setup({ form: {}, url: {} }, approve, { instantDeclineMs: 5_000 });
    const asked: string[] = [];
    const client = await connect((params) => {
      asked.push(params.mode ?? 'form');
      return { action: 'decline' };
    });
    const url = pageUrl(text(await client.callTool({ name: 'deploy', arguments: { app: 'shop' } })))!;
    expect(asked).toEqual(['url']);
    // Still pending: the retry shows the same page (URL mode again, declined at once again), then the same link.
    expect(pageUrl(text(await client.callTool({ name: 'deploy', arguments: { app: 'shop' } })))).toBe(url);
    await service.complete(idOf(url), { confirmed: true });
    expect(text(await client.callTool({ name: 'deploy', arguments: { app: 'shop' } }))).toBe('Deployed shop via link');
    expect(await service.list({ userId: 'alice' })).toHaveLength(1);
  });

  it('clientPolicy sees who the client is and what it declared; dropping url sends the question over the bridge', async () => {
    const seen: McpClientProfile[] = [];
    const { connect } = await setup({ form: {}, url: {} }, approve, {
      clientPolicy: (client) => {
        seen.push(client);
        return client.name === 'url-decliner' ? { form: {} } : client.declared;
      },
    });
    const modes: string[] = [];
    const client = await connect(
      (params) => {
        modes.push(params.mode ?? 'form');
        return { action: 'decline' };
      },
      'alice',
      'url-decliner',
    );
    await client.callTool({ name: 'deploy', arguments: { app: 'shop' } });
    expect(modes).toEqual(['form']);
    expect(seen).toEqual([{ name: 'url-decliner', version: '9.1', era: '2025-11-25', declared: { form: {}, url: {} } }]);
  });

  it('callWaitMs: a call without a progress token ends with the link at its deadline, the page still open; a later call takes the answer', async () => {
    const { service, connect } = await setup({ form: {}, url: {} }, approve, { callWaitMs: 300 });
    const client = await connect(() => ({ action: 'accept' })); // the client opens the page; the person is slow
    const started = Date.now();
    const first = await client.callTool({ name: 'deploy', arguments: { app: 'shop' } });
    expect(Date.now() - started).toBeLessThan(5_000);
    const [pending] = await service.list({ userId: 'alice' });
    expect(pending.status).toBe('pending');
    expect(text(first).split('\n')[0]).toBe(`Open this page to continue: ${pageUrl(text(first))}`);
    expect(text(first)).toContain(pending.elicitationId);
    // The person answers after the call ended: the page was never cancelled, and the next call takes the answer.
    expect((await service.complete(pending.elicitationId, { confirmed: true })).ok).toBe(true);
    const again = await client.callTool({ name: 'deploy', arguments: { app: 'shop' } });
    expect(text(again)).toBe('Deployed shop via link');
  });

  it('callWaitMs bounds a form question too: at the deadline the call ends with the hosted form page, whose answer the next call takes', async () => {
    const nameForm = defineForm({ type: 'object', properties: { name: { type: 'string' } }, required: ['name'] });
    const greet: Handler = async ({ app }, el) => {
      const answer = await el.elicit('Your name?', nameForm);
      return answer.action === 'accept' ? `${app} for ${answer.content.name} via ${answer.via}` : answer.action;
    };
    const { service, connect } = await setup({ form: {} }, greet, { callWaitMs: 300 });
    const client = await connect(() => new Promise<ElicitResult>(() => undefined)); // the form dialog is never answered
    const first = await client.callTool({ name: 'deploy', arguments: { app: 'shop' } });
    expect(text(first).split('\n')[0]).toBe(`Open this page to continue: ${pageUrl(text(first))}`);
    const [page] = await service.list({ userId: 'alice' });
    expect(page).toMatchObject({ kind: 'form', status: 'pending' });
    // The person answers on the hosted form page after the call ended; the tool called again takes that answer.
    expect((await service.complete(page.elicitationId, { name: 'Ada' })).ok).toBe(true);
    const again = await client.callTool({ name: 'deploy', arguments: { app: 'shop' } });
    expect(text(again)).toBe('shop for Ada via link');
  });

  it('callWaitMs does not bound a call with a progress token (progress keeps it alive): it waits for the page', async () => {
    const { service, connect } = await setup({ form: {}, url: {} }, approve, { callWaitMs: 100, keepAliveMs: 50 });
    const client = await connect((params) => {
      setTimeout(() => void service.complete(idOf((params as { url: string }).url), { confirmed: true }), 400);
      return { action: 'accept' };
    });
    const progress: number[] = [];
    const result = await client.callTool({ name: 'deploy', arguments: { app: 'shop' } }, undefined, {
      onprogress: (p) => progress.push(p.progress),
      resetTimeoutOnProgress: true,
    });
    expect(text(result)).toBe('Deployed shop via url');
    expect(progress.length).toBeGreaterThan(0);
  });

  it('built-in profile mcp-remote: on 2026-07-28 a client behind mcp-remote that declares URL mode gets the bridge (off: the URL); on 2025-11-25, where mcp-remote passes requests through, the URL', async () => {
    const behind = 'Claude Desktop (via mcp-remote 0.15.0)';
    const seen: McpClientProfile[] = [];
    const modern = { name: behind, version: '9.1', era: '2026-07-28' as const, declared: { form: {}, url: {} } };
    const on = composeClientPolicy(undefined, (client) => (seen.push(client), client.declared));
    expect(on?.(modern)).toEqual({ form: {} });
    // clientPolicy sees what the profile left.
    expect(seen).toEqual([{ ...modern, declared: { form: {} } }]);
    expect(composeClientPolicy({ 'mcp-remote': false }, undefined)).toBeUndefined();
    expect(composeClientPolicy(undefined, undefined)?.({ ...modern, declared: { url: {} } })).toBeUndefined();
    expect(composeClientPolicy(undefined, undefined)?.({ ...modern, name: 'Claude Desktop' })).toEqual(modern.declared);

    // 2025-11-25, through a real SDK 1.x client named as mcp-remote names it: the URL request goes out.
    const legacy = await setup({ form: {}, url: {} }, approve);
    const modes: string[] = [];
    const answer = (params: ElicitRequest['params']) => (modes.push(params.mode ?? 'form'), { action: 'decline' as const });
    await (await legacy.connect(answer, 'alice', behind)).callTool({ name: 'deploy', arguments: { app: 'shop' } });
    expect(modes).toEqual(['url']);
  });

  it('refuses a clientProfiles entry that names no profile, or is not a boolean, naming it', () => {
    const resolve = (clientProfiles: unknown) => () =>
      resolveElicitationOptions({ baseUrl: 'https://x.example', clientProfiles: clientProfiles as never }, 'elicit', {});
    expect(resolve({ 'mcp-remot': false })).toThrow(
      /clientProfiles.*has no profile "mcp-remot" \(the built-in profiles: mcp-remote, mcp-use, mastra\)/,
    );
    expect(resolve({ 'mcp-remote': 'no' })).toThrow(/clientProfiles.*\.mcp-remote must be true or false/);
    expect(resolve(['mcp-remote'])).toThrow(/clientProfiles.*must be an object/);
  });

  it('refuses the model rung at declaration for a form with secret fields (the answer would pass through the model)', async () => {
    const { connect } = await setup(null, async (_args, el) => {
      await el.elicit('Password?', secretForm, { fallback: ['form', 'model'] });
      return 'asked';
    });
    const result = await (await connect()).callTool({ name: 'deploy', arguments: { app: 'x' } });
    expect(result.isError).toBe(true);
    expect(text(result)).toMatch(/password.*'model' rung/);
  });

  it("runCall: the call-shaped entry names the call's user when the dispatcher knows it (null: none)", async () => {
    ref = await compileElicitation();
    const binding = ref.get(McpElicitation);
    const server = new McpServer({ name: 'dispatcher', version: '1.0.0' });
    server.registerTool('who', { inputSchema: z.object({ as: z.string().nullable() }) }, async ({ as }, extra) => {
      const result = await binding.runCall(
        server,
        'who',
        { as },
        extra,
        (el) => ({ content: [{ type: 'text' as const, text: el.userId }] }),
        {
          user: as,
        },
      );
      return result as { content: Array<{ type: 'text'; text: string }> };
    });
    const client = new Client({ name: 'c', version: '1' });
    const [a, b] = InMemoryTransport.createLinkedPair();
    await Promise.all([server.connect(a), client.connect(b)]);
    clients.push(client);
    expect(text(await client.callTool({ name: 'who', arguments: { as: 'zoe' } }))).toBe('zoe');
    const none = await client.callTool({ name: 'who', arguments: { as: null } });
    expect(none.isError).toBe(true);
    expect(text(none)).toMatch(/No authenticated user/);
  });

  it('keep-alive: progress notifications for the call while the person answers, naming what is awaited', async () => {
    const { service, connect } = await setup({ form: {}, url: {} }, approve, { keepAliveMs: 20 });
    let id = '';
    const client = await connect((params) => {
      id = (params as { elicitationId: string }).elicitationId;
      return { action: 'accept' };
    });
    const progress: Array<{ progress: number; message?: string }> = [];
    const call = client.callTool({ name: 'deploy', arguments: { app: 'shop' } }, undefined, {
      onprogress: (p) => {
        progress.push(p);
        if (progress.length === 3) void service.complete(id, { confirmed: true });
      },
    });
    expect(text(await call)).toBe('Deployed shop via url');
    expect(progress.length).toBeGreaterThanOrEqual(3);
    expect(progress[0].message).toBe('Waiting for the user to answer: Deploy shop?');
    expect(progress.map((p) => p.progress)).toEqual([...progress.map((p) => p.progress)].sort((a, b) => a - b));
  });

  it('keep-alive of an approval: each progress notification says where it stands, read again as approvers decide', async () => {
    const drop: Handler = async (_args, el) => {
      const outcome = await el.requestApproval({ approvers: ['bob', 'carol'], quorum: 2, message: 'Drop users?' });
      return `${outcome.status} by ${outcome.approvedBy?.join(' and ')}`;
    };
    const { service, connect } = await setup({ form: {}, url: {} }, drop, { keepAliveMs: 20 });
    const client = await connect(() => ({ action: 'accept' }));
    const pageOf = async (user: string) => (await service.listOpen(user)).questions[0].elicitationId;
    const progress: string[] = [];
    let step = 0;
    const call = client.callTool({ name: 'deploy', arguments: { app: 'shop' } }, undefined, {
      onprogress: (p) => {
        progress.push(p.message ?? '');
        if (progress.length === 2 && step++ === 0) void pageOf('bob').then((id) => service.complete(id, { confirmed: true }));
        if (progress.some((m) => m.includes('bob approved')) && step++ === 1) {
          void pageOf('carol').then((id) => service.complete(id, { confirmed: true }));
        }
      },
    });
    expect(text(await call)).toBe('approved by bob and carol');
    expect(progress[0]).toBe('Waiting for the user to answer: Drop users?\n\n0 of 2 approvals: waiting for bob or carol');
    expect(progress).toContain('Waiting for the user to answer: Drop users?\n\n1 of 2 approvals: bob approved; waiting for carol');
  });

  it('client cancellation: aborting the waiting call cancels the elicitation', async () => {
    const { service, connect } = await setup({ form: {}, url: {} }, approve);
    let id = '';
    const asked = new Promise<void>((resolve) => {
      void connect((params) => {
        id = (params as { elicitationId: string }).elicitationId;
        resolve();
        return { action: 'accept' };
      }).then((client) => {
        const controller = new AbortController();
        const call = client.callTool({ name: 'deploy', arguments: { app: 'shop' } }, undefined, { signal: controller.signal });
        void asked.then(() => controller.abort());
        call.catch(() => undefined);
      });
    });
    await asked;
    for (let i = 0; i < 200 && (await service.getStatus(id))?.status === 'pending'; i++) await new Promise((r) => setTimeout(r, 10));
    expect((await service.getStatus(id))?.status).toBe('cancelled');
  });
});
