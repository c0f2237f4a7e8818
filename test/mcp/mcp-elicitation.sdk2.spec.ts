/**
 * The binding on an SDK 2.x `McpServer` (`@modelcontextprotocol/server`) serving a 2025-11-25 connection,
 * in process: the real SDK 2.x client on the legacy handshake, linked in memory. A tool registered once
 * through `registerTool` pushes form and URL questions on the call, the completion notification reaches
 * the client, and `requireAnswer` fails the call with -32042 carrying the page URL.
 */
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import type { TestingModule } from '@nestjs/testing';
import {
  Client,
  InMemoryTransport,
  UrlElicitationRequiredError,
  type ElicitRequestParams,
  type ElicitResult,
} from '@modelcontextprotocol/client';
import { McpServer } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { ElicitationService } from '../../src/lifecycle/elicitation.service.js';
import { defineForm } from '../../src/forms/define-form.js';
import { CompletionNotifications } from '../../src/mcp/completion-notifications.js';
import { McpElicitation } from '../../src/mcp/mcp-elicitation.js';
import type { ToolElicitation } from '../../src/mcp/tool-elicitation.js';
import { compileElicitation } from '../support/testing-module.js';

const UUID_V4 = '[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}';

const form = defineForm({
  type: 'object',
  properties: {
    name: { type: 'string', title: 'Name', minLength: 1 },
    seats: { type: 'integer', minimum: 1, maximum: 10, default: 2 },
  },
  required: ['name'],
});

type Handler = (params: ElicitRequestParams) => Promise<ElicitResult>;

describe('McpElicitation on an SDK 2.x McpServer serving 2025-11-25 (in-memory, real SDK 2.x client)', () => {
  let ref: TestingModule;
  let binding: McpElicitation;
  let service: ElicitationService;
  const closers: Array<() => Promise<void>> = [];

  beforeEach(async () => {
    // In memory there is no HTTP auth: the verified MCP user is given by the module option.
    ref = await compileElicitation({ resolveMcpUser: () => 'alice' });
    binding = ref.get(McpElicitation);
    service = ref.get(ElicitationService);
  });
  afterEach(async () => {
    await Promise.all(closers.splice(0).map((close) => close().catch(() => undefined)));
    await ref.close();
  });

  /**
   * An SDK 2.x McpServer with one `probe` tool registered through the binding (its body is `body`), and
   * a legacy SDK 2.x client answering `elicitation/create` with `onElicit`.
   */
  async function linkedV2(body: (el: ToolElicitation, args: { topic: string }) => Promise<unknown>, onElicit: Handler) {
    const server = new McpServer({ name: 'v2-legacy-unit', version: '1.0.0' }, { ...binding.serverOptions() });
    const eras: string[] = [];
    binding.registerTool(
      server,
      'probe',
      { description: 'test probe', inputSchema: z.object({ topic: z.string() }) },
      async (args: { topic: string }, el) => {
        eras.push(el.era);
        const value = await body(el, args);
        return { content: [{ type: 'text' as const, text: JSON.stringify(value ?? null) }] };
      },
    );
    const client = new Client({ name: 'v2-legacy-client', version: '1.0.0' }, { capabilities: { elicitation: { form: {}, url: {} } } });
    const asked: ElicitRequestParams[] = [];
    client.setRequestHandler('elicitation/create', (request) => {
      asked.push(request.params);
      return onElicit(request.params);
    });
    const completed: string[] = [];
    let onComplete: ((id: string) => void) | undefined;
    client.setNotificationHandler('notifications/elicitation/complete', (notification) => {
      completed.push(notification.params.elicitationId);
      onComplete?.(notification.params.elicitationId);
    });
    const [serverSide, clientSide] = InMemoryTransport.createLinkedPair();
    await Promise.all([server.connect(serverSide), client.connect(clientSide)]);
    closers.push(
      () => client.close(),
      () => server.close(),
    );
    expect(client.getProtocolEra()).toBe('legacy');
    return {
      eras,
      asked,
      completed,
      /** Resolves with the id of the next completion notification (rejects after 5 s). */
      nextCompletion: () =>
        new Promise<string>((resolve, reject) => {
          const timer = setTimeout(() => reject(new Error('no notifications/elicitation/complete within 5 s')), 5_000);
          onComplete = (id) => {
            clearTimeout(timer);
            resolve(id);
          };
        }),
      call: (topic = 'x') => client.callTool({ name: 'probe', arguments: { topic } }),
    };
  }

  const textOf = (result: unknown): unknown => JSON.parse((result as { content: Array<{ text: string }> }).content[0].text);

  it('pushes a form question on the call and resolves the validated answer, defaults applied', async () => {
    const link = await linkedV2(
      (el, { topic }) => el.elicit(`About ${topic}`, form),
      () => Promise.resolve({ action: 'accept', content: { name: 'Ada' } }),
    );
    const result = await link.call('seating');
    expect(textOf(result)).toEqual({ action: 'accept', content: { name: 'Ada', seats: 2 }, via: 'form' });
    expect(link.eras).toEqual(['2025-11-25']);
    expect(link.asked).toHaveLength(1);
    expect(link.asked[0]).toMatchObject({
      mode: 'form',
      message: 'About seating',
      requestedSchema: { type: 'object', properties: { name: { type: 'string' }, seats: { type: 'integer' } }, required: ['name'] },
    });
    // Form mode stores nothing.
    expect(await service.list({ userId: 'alice' })).toEqual([]);
  });

  it('passes a decline through', async () => {
    const link = await linkedV2(
      (el) => el.elicit('Anything?', form),
      () => Promise.resolve({ action: 'decline' }),
    );
    expect(textOf(await link.call())).toEqual({ action: 'decline', via: 'form' });
  });

  it('pushes a URL question, waits for the page, and notifies the client when the elicitation completes', async () => {
    let seen!: () => void;
    const pushed = new Promise<void>((resolve) => (seen = resolve));
    const link = await linkedV2(
      (el) => el.requestUrl({ kind: 'confirm', type: 'deploy-approval', message: 'Deploy shop?' }),
      () => {
        seen();
        return Promise.resolve({ action: 'accept' });
      },
    );
    const notified = link.nextCompletion();
    const call = link.call();
    await pushed;
    const [asked] = link.asked as Array<Extract<ElicitRequestParams, { mode: 'url' }>>;
    expect(asked).toMatchObject({ mode: 'url', message: 'Deploy shop?' });
    expect(asked.url).toMatch(new RegExp(`^https://mcp\\.example\\.com/elicit/${UUID_V4}/confirm$`));
    expect(asked.url).toBe(`https://mcp.example.com/elicit/${asked.elicitationId}/confirm`);
    expect((await service.getStatus(asked.elicitationId))?.status).toBe('pending');

    // The user confirms on the page (the page does exactly this).
    const completed = await service.complete(asked.elicitationId, { confirmed: true });
    expect(completed.ok).toBe(true);
    expect(textOf(await call)).toEqual({ status: 'completed', data: { confirmed: true }, via: 'url' });
    expect(await notified).toBe(asked.elicitationId);
    expect(link.completed).toEqual([asked.elicitationId]);
    // The pairing is forgotten once the elicitation finished.
    expect(ref.get(CompletionNotifications).tracked.elicitations).toBe(0);
  });

  it('fails requireAnswer with -32042 carrying the page URL, and the retry after the page finds the answer', async () => {
    const link = await linkedV2(
      (el) => el.requireAnswer({ kind: 'api-key', type: 'api-key-github', message: 'Your github key, please.' }),
      () => Promise.resolve({ action: 'accept' }),
    );
    const error = await link.call().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(UrlElicitationRequiredError);
    const e = error as UrlElicitationRequiredError;
    expect(e.code).toBe(-32042);
    expect(e.elicitations).toHaveLength(1);
    const [el] = e.elicitations;
    expect(el).toMatchObject({ mode: 'url', message: 'Your github key, please.' });
    expect(el.url).toMatch(new RegExp(`^https://mcp\\.example\\.com/elicit/${UUID_V4}/api-key$`));
    expect(el.url).toBe(`https://mcp.example.com/elicit/${el.elicitationId}/api-key`);
    // -32042 is an error, not a pushed question.
    expect(link.asked).toEqual([]);
    expect(await service.list({ userId: 'alice', status: 'pending' })).toEqual([
      expect.objectContaining({ elicitationId: el.elicitationId, kind: 'api-key', type: 'api-key-github' }),
    ]);

    // A retry before the page was submitted asks for the same page again.
    const again = (await link.call().catch((x: unknown) => x)) as UrlElicitationRequiredError;
    expect(again).toBeInstanceOf(UrlElicitationRequiredError);
    expect(again.elicitations[0].elicitationId).toBe(el.elicitationId);

    const notified = link.nextCompletion();
    expect((await service.complete(el.elicitationId, { apiKey: 'ghp_unit' })).ok).toBe(true);
    expect(await notified).toBe(el.elicitationId);
    expect(textOf(await link.call())).toEqual({ apiKey: 'ghp_unit' });
  });

  it('a step before requireAnswer runs once across the -32042 continuations (its result and key kept in the store for the next call)', async () => {
    const keys: string[] = [];
    const link = await linkedV2(
      async (el) => {
        const ticket = await el.step('open-ticket', ({ idempotencyKey }) => (keys.push(idempotencyKey), `T-${keys.length}`));
        const answer = await el.requireAnswer({ kind: 'api-key', type: 'api-key-steps', message: 'Your key for the ticket, please.' });
        return { ticket, answer };
      },
      () => Promise.resolve({ action: 'accept' }),
    );
    const first = (await link.call().catch((x: unknown) => x)) as UrlElicitationRequiredError;
    expect(first).toBeInstanceOf(UrlElicitationRequiredError);
    // A retry before the page was answered continues the same call: the step is not run again.
    const again = (await link.call().catch((x: unknown) => x)) as UrlElicitationRequiredError;
    expect(again).toBeInstanceOf(UrlElicitationRequiredError);
    expect((await service.complete(first.elicitations[0].elicitationId, { apiKey: 'k-1' })).ok).toBe(true);
    expect(textOf(await link.call())).toEqual({ ticket: 'T-1', answer: { apiKey: 'k-1' } });
    expect(keys).toHaveLength(1);
    // The call ran its tool: a later call of it is a new one, its step runs (under a new key).
    await link.call().catch(() => undefined);
    expect(keys).toHaveLength(2);
    expect(keys[1]).not.toBe(keys[0]);
  });
});
