import { afterEach, beforeEach, describe, expect, it, jest } from '@jest/globals';
import { Logger } from '@nestjs/common';
import type { TestingModule } from '@nestjs/testing';
import { ElicitRequestSchema, ErrorCode, McpError, UrlElicitationRequiredError } from '@modelcontextprotocol/sdk/types.js';
import { ElicitationService } from '../../src/lifecycle/elicitation.service.js';
import { CompletionNotifications } from '../../src/mcp/completion-notifications.js';
import { McpElicitation } from '../../src/mcp/mcp-elicitation.js';
import { linked, type Caps } from '../support/linked-mcp.js';
import { compileElicitation } from '../support/testing-module.js';

describe('McpElicitation (SDK 1.x binding)', () => {
  let ref: TestingModule;
  let binding: McpElicitation;
  let service: ElicitationService;
  let notifications: CompletionNotifications;

  beforeEach(async () => {
    ref = await compileElicitation();
    binding = ref.get(McpElicitation);
    service = ref.get(ElicitationService);
    notifications = ref.get(CompletionNotifications);
  });
  afterEach(async () => {
    await ref.close();
  });

  it.each<[string, Caps, boolean, boolean]>([
    ['elicitation: {} (form only, backwards compatible)', {}, true, false],
    ['{ form: {} }', { form: {} }, true, false],
    ['{ url: {} }', { url: {} }, false, true],
    ['{ form: {}, url: {} }', { form: {}, url: {} }, true, true],
    ['no elicitation capability', undefined, false, false],
  ])('applies the spec capability rules for %s', async (_, caps, form, url) => {
    const { call } = await linked(binding, caps);
    const { el } = await call(() => Promise.resolve(undefined));
    expect(el.isSupported('form')).toBe(form);
    expect(el.isSupported('url')).toBe(url);
  });

  it('throwRequired produces the -32042 error with data.elicitations the SDK client understands', async () => {
    const { client, call } = await linked(binding, { url: {} });
    let created: { elicitationId: string; url: string } | undefined;
    const error = await call(async (el) => {
      const request = await el.create({ kind: 'api-key', message: 'Key please', type: 'api-key-x' });
      created = request;
      el.throwRequired([request], 'Need a key.');
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UrlElicitationRequiredError);
    const e = error as UrlElicitationRequiredError;
    expect(e.code).toBe(ErrorCode.UrlElicitationRequired);
    expect(e.message).toContain('Need a key.');
    expect(e.elicitations).toEqual([{ mode: 'url', elicitationId: created!.elicitationId, url: created!.url, message: 'Key please' }]);
    await client.close();
  });

  it('sends notifications/elicitation/complete to the creating session only, once, and forgets the pairing', async () => {
    const a = await linked(binding, { url: {} });
    const b = await linked(binding, { url: {} });
    let id = '';
    await a.call(async (el) => (id = (await el.create({ kind: 'confirm', message: 'ok?' })).elicitationId));
    expect(notifications.tracked).toEqual({ sessions: 1, elicitations: 1 });
    await service.complete(id, { confirmed: true });
    await new Promise((r) => setTimeout(r, 20));
    expect(a.notifications).toEqual([id]);
    expect(b.notifications).toEqual([]);
    expect(notifications.tracked).toEqual({ sessions: 0, elicitations: 0 });
    await service.cancel(id);
    await new Promise((r) => setTimeout(r, 20));
    expect(a.notifications).toEqual([id]);
  });

  it('forgets a session when its server closes, keeping the elicitation pending', async () => {
    const { server, call } = await linked(binding, { url: {} });
    let id = '';
    await call(async (el) => (id = (await el.create({ kind: 'confirm', message: 'ok?' })).elicitationId));
    expect(notifications.tracked.sessions).toBe(1);
    await server.close();
    expect(notifications.tracked).toEqual({ sessions: 0, elicitations: 0 });
    expect((await service.getStatus(id))!.status).toBe('pending');
  });

  it('logs a failed notification and never throws it into the completing request', async () => {
    const { call } = await linked(binding, { url: {} });
    let id = '';
    await call(async (el) => (id = (await el.create({ kind: 'confirm', message: 'ok?' })).elicitationId));
    notifications['notifiers'].get(id)!.notify = () => Promise.reject(new Error('transport gone'));
    const warnings: unknown[] = [];
    const warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation((message: unknown) => {
      warnings.push(message);
    });
    try {
      await expect(service.complete(id, { confirmed: true })).resolves.toMatchObject({ ok: true });
      await new Promise((r) => setTimeout(r, 10));
    } finally {
      warn.mockRestore();
    }
    expect(warnings).toEqual([expect.stringContaining(`Could not send notifications/elicitation/complete for ${id}: transport gone`)]);
  });

  it('refuses URL elicitation to a client without url (tool error, nothing stored)', async () => {
    const { call } = await linked(binding, {});
    const { result } = await call((el) => el.create({ kind: 'confirm', message: 'ok?' }));
    expect(result.isError).toBe(true);
    expect(JSON.stringify(result.content)).toContain('does not support');
    expect(await service.list({ userId: 'alice' })).toEqual([]);
  });

  it('requires a verified user from authInfo', async () => {
    const { call } = await linked(binding, { url: {} }, null);
    const { result } = await call((el) => el.create({ kind: 'confirm', message: 'ok?' }));
    expect(result.isError).toBe(true);
    expect(JSON.stringify(result.content)).toContain('No authenticated user');
  });

  it('requireAnswer returns a stored answer without asking again', async () => {
    const { call } = await linked(binding, { url: {} });
    const first = await call((el) => el.requireAnswer({ kind: 'api-key', type: 'api-key-z', message: 'key?' })).catch((e: unknown) => e);
    expect(first).toBeInstanceOf(UrlElicitationRequiredError);
    await service.complete((first as UrlElicitationRequiredError).elicitations[0].elicitationId, { apiKey: 'stored' });
    const { result } = await call((el) => el.requireAnswer({ kind: 'api-key', type: 'api-key-z', message: 'key?' }));
    expect(result.content).toEqual([{ type: 'text', text: JSON.stringify({ apiKey: 'stored' }) }]);
  });

  it('elicitForm on a client without form support is a readable error, not a request', async () => {
    const { call } = await linked(binding, { url: {} });
    const { result } = await call((el) => el.elicitForm('Name?', { type: 'object', properties: { name: { type: 'string' } } }));
    expect(result.isError).toBe(true);
    expect(JSON.stringify(result.content)).toContain('form-mode elicitation');
  });

  it('requestUrl cancels the elicitation when the wait times out', async () => {
    const { call } = await linked(binding, { url: {} });
    const { result } = await call((el) => el.requestUrl({ kind: 'confirm', message: 'ok?', timeoutMs: 30 }));
    expect(result.content).toEqual([{ type: 'text', text: JSON.stringify({ status: 'timeout', via: 'url' }) }]);
    const [summary] = await service.list({ userId: 'alice' });
    expect(summary.status).toBe('cancelled');
  });

  it('surfaces a protocol error the client sends back, cancelling the elicitation', async () => {
    const { client, call } = await linked(binding, { url: {} });
    client.setRequestHandler(ElicitRequestSchema, () => Promise.reject(new McpError(ErrorCode.InvalidParams, 'client refuses')));
    const { result } = await call((el) => el.requestUrl({ kind: 'confirm', message: 'ok?' }));
    expect(result.isError).toBe(true);
    expect(JSON.stringify(result.content)).toContain('client refuses');
    const [summary] = await service.list({ userId: 'alice' });
    expect(summary.status).toBe('cancelled');
  });
});
