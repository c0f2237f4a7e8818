import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import type { TestingModule } from '@nestjs/testing';
import { ElicitRequestSchema, type ElicitRequest } from '@modelcontextprotocol/sdk/types.js';
import { ElicitationService } from '../../src/lifecycle/elicitation.service.js';
import { defineForm } from '../../src/forms/define-form.js';
import { McpElicitation } from '../../src/mcp/mcp-elicitation.js';
import { linked } from '../support/linked-mcp.js';
import { compileElicitation } from '../support/testing-module.js';

const profile = defineForm({
  type: 'object',
  properties: {
    name: { type: 'string', minLength: 1 },
    email: { type: 'string', format: 'email' },
    plan: {
      type: 'string',
      oneOf: [
        { const: 'free', title: 'Free' },
        { const: 'pro', title: 'Pro' },
      ],
      default: 'free',
    },
  },
  required: ['name', 'email'],
});

const text = (result: unknown) => (result as { content: Array<{ text: string }> }).content[0].text;

describe('ToolElicitation.elicit (form mode, validated and typed)', () => {
  let ref: TestingModule;
  let binding: McpElicitation;
  let service: ElicitationService;

  beforeEach(async () => {
    ref = await compileElicitation();
    binding = ref.get(McpElicitation);
    service = ref.get(ElicitationService);
  });
  afterEach(async () => {
    await ref.close();
  });

  it('sends the schema on the tool call and returns accepted content typed, with defaults applied', async () => {
    const { client, call } = await linked(binding, { form: {} });
    let seen: ElicitRequest['params'] | undefined;
    client.setRequestHandler(ElicitRequestSchema, ({ params }) => {
      seen = params;
      return { action: 'accept', content: { name: 'Mona', email: 'mona@example.com' } };
    });
    const { result } = await call(async (el) => {
      const answer = await el.elicit('Your profile?', profile);
      if (answer.action !== 'accept') throw new Error('expected accept');
      const email: string = answer.content.email;
      return { ...answer, email };
    });
    expect(JSON.parse(text(result))).toEqual({
      action: 'accept',
      content: { name: 'Mona', email: 'mona@example.com', plan: 'free' },
      email: 'mona@example.com',
      via: 'form',
    });
    expect(seen).toMatchObject({ mode: 'form', message: 'Your profile?', requestedSchema: profile.schema });
  });

  it.each(['decline', 'cancel'] as const)('returns %s without content', async (action) => {
    const { client, call } = await linked(binding, { form: {} });
    client.setRequestHandler(ElicitRequestSchema, () => ({ action }));
    const { result } = await call((el) => el.elicit('Your profile?', profile));
    expect(JSON.parse(text(result))).toEqual({ action, via: 'form' });
  });

  it.each([
    ['an accept without content', { action: 'accept' as const }, /\(answer\) must be an object/],
    [
      'an extra key',
      { action: 'accept' as const, content: { name: 'M', email: 'm@e.io', admin: true } },
      /admin is not a field of this form/,
    ],
    ['a missing required field (the SDK or we refuse it)', { action: 'accept' as const, content: { name: 'M' } }, /email/],
  ])('turns %s into a tool error listing the fields (where the SDK lets it pass)', async (_, answer, message) => {
    const { client, call } = await linked(binding, { form: {} });
    client.setRequestHandler(ElicitRequestSchema, () => answer);
    const { result } = await call((el) => el.elicit('Your profile?', profile));
    expect(result.isError).toBe(true);
    expect(text(result)).toMatch(message);
  });

  it('asks again after an invalid answer, naming the fields to correct, and accepts a valid one (2025-11-25)', async () => {
    const { client, call } = await linked(binding, { form: {} });
    const answers = [
      // Invalid for the form but not for the SDK's own schema check (which refuses a wrong format itself).
      { action: 'accept' as const, content: { name: 'Mona', email: 'mona@example.com', admin: 'root-secret' } },
      { action: 'accept' as const, content: { name: 'Mona', email: 'mona@example.com', role: 'owner' } },
      { action: 'accept' as const, content: { name: 'Mona', email: 'mona@example.com' } },
    ];
    const messages: string[] = [];
    client.setRequestHandler(ElicitRequestSchema, ({ params }) => {
      messages.push(params.message);
      return answers[messages.length - 1];
    });
    const { result } = await call((el) => el.elicit('Your profile?', profile));
    expect(JSON.parse(text(result))).toEqual({
      action: 'accept',
      content: { name: 'Mona', email: 'mona@example.com', plan: 'free' },
      via: 'form',
    });
    expect(messages).toHaveLength(3);
    expect(messages[0]).toBe('Your profile?');
    expect(messages[1]).toMatch(/^Your profile\?\n\nPlease correct: admin /);
    expect(messages[1]).not.toContain('root-secret');
    expect(messages[2]).toMatch(/^Your profile\?\n\nPlease correct: role /);
  });

  it('fails with the field problems after limits.maxFormAttempts invalid answers (2025-11-25)', async () => {
    const { client, call } = await linked(binding, { form: {} });
    let asked = 0;
    client.setRequestHandler(ElicitRequestSchema, () => {
      asked++;
      return { action: 'accept', content: { name: 'Mona', email: 'mona@example.com', admin: 'root-secret' } };
    });
    const { result } = await call((el) => el.elicit('Your profile?', profile));
    expect(result.isError).toBe(true);
    expect(text(result)).toMatch(/does not match the form: admin is not a field of this form/);
    expect(text(result)).not.toContain('root-secret');
    expect(asked).toBe(3);
  });

  it('runs a step once in a 2025-11-25 call (which waits for its answers) and refuses a name used twice', async () => {
    const { client, call } = await linked(binding, { form: {} });
    client.setRequestHandler(ElicitRequestSchema, () => ({ action: 'accept', content: { name: 'Mona', email: 'mona@example.com' } }));
    const keys: string[] = [];
    const { result } = await call(async (el) => {
      const ticket = await el.step('open-ticket', ({ idempotencyKey }) => (keys.push(idempotencyKey), 'T-1'));
      const answer = await el.elicit('Your profile?', profile);
      return { ticket, action: answer.action };
    });
    expect(JSON.parse(text(result))).toEqual({ ticket: 'T-1', action: 'accept' });
    expect(keys).toEqual([expect.stringMatching(/^[A-Za-z0-9_-]{43}$/)]);
    const { result: twice } = await call(async (el) => [await el.step('a', () => 1), await el.step('a', () => 2)]);
    expect(twice.isError).toBe(true);
    expect(text(twice)).toContain('elicitation.step("a") was reached twice in one run');
  });

  it('correlates several pending questions in one session', async () => {
    const { client, call } = await linked(binding, { form: {} });
    client.setRequestHandler(ElicitRequestSchema, async ({ params }) => {
      await new Promise((r) => setTimeout(r, params.message === 'first' ? 40 : 5));
      return { action: 'accept', content: { name: params.message, email: `${params.message}@e.io` } };
    });
    const { result } = await call(async (el) => {
      const [a, b, c] = await Promise.all([el.elicit('first', profile), el.elicit('second', profile), el.elicit('third', profile)]);
      return [a, b, c].map((r) => (r.action === 'accept' ? r.content.name : r.action));
    });
    expect(JSON.parse(text(result))).toEqual(['first', 'second', 'third']);
  });

  it('fails clearly for a client without form support when the ladder ends at "error"', async () => {
    const { call } = await linked(binding, { url: {} });
    const { result } = await call((el) => el.elicit('Your profile?', profile, { fallback: ['form', 'error'] }));
    expect(result.isError).toBe(true);
    expect(text(result)).toMatch(/form-mode elicitation/);
  });

  it('falls back to the hosted form page for a URL-only client (the url rung)', async () => {
    const { client, call } = await linked(binding, { url: {} });
    let url = '';
    client.setRequestHandler(ElicitRequestSchema, ({ params }) => {
      if (params.mode !== 'url') throw new Error('expected URL mode');
      url = params.url;
      // The user fills the hosted page: here, straight through the service.
      setTimeout(() => void service.complete(params.elicitationId, { name: 'Hosted', email: 'h@e.io', plan: 'pro' }), 10);
      return { action: 'accept' };
    });
    const { result } = await call((el) => el.elicit('Your profile?', profile));
    expect(url).toMatch(/\/elicit\/[0-9a-f-]{36}\/form$/);
    expect(JSON.parse(text(result))).toEqual({ action: 'accept', content: { name: 'Hosted', email: 'h@e.io', plan: 'pro' }, via: 'url' });
  });

  it('sends forms with secret fields to the hosted page, never through form mode', async () => {
    const login = defineForm(
      { type: 'object', properties: { user: { type: 'string' }, password: { type: 'string' } } },
      { secretFields: ['password'] },
    );
    const formOnly = await linked(binding, { form: {} });
    const refused = await formOnly.call((el) => el.elicit('Sign in', login));
    expect(refused.result.isError).toBe(true);
    expect(text(refused.result)).toMatch(/password.*hosted form page/);

    const both = await linked(binding, { form: {}, url: {} });
    let mode = '';
    both.client.setRequestHandler(ElicitRequestSchema, ({ params }) => {
      mode = params.mode ?? 'form';
      return { action: 'decline' };
    });
    const { result } = await both.call((el) => el.elicit('Sign in', login));
    expect(mode).toBe('url');
    expect(JSON.parse(text(result))).toEqual({ action: 'decline', via: 'url' });
  });

  it('lints a raw schema given to elicit', async () => {
    const { call } = await linked(binding, { form: {} });
    const { result } = await call((el) => el.elicit('x', { type: 'object', properties: { apiKey: { type: 'string' } } }));
    expect(result.isError).toBe(true);
    expect(text(result)).toMatch(/apiKey.*secret/);
  });
});
