import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import { startDemoApp, type DemoApp } from '../../examples/demo/demo-app.js';
import { profileForm } from '../../examples/demo/profile-form.js';
import { connectClient, textOf, type TestClient } from '../support/mcp-client.js';

const FULL = {
  displayName: 'Mona',
  email: 'mona@example.com',
  homepage: 'https://mona.dev',
  birthday: '1990-02-28',
  availableFrom: '2026-12-01T09:00:00Z',
  age: 36,
  hoursPerWeek: 32.5,
  newsletter: true,
  theme: 'dark',
  language: 'fr',
  plan: 'team',
  interests: ['ai', 'ops'],
  roles: ['dev', 'ops'],
};

describe('form mode end to end: configure-profile over Streamable HTTP with the real SDK client', () => {
  let demo: DemoApp;
  const clients: TestClient[] = [];

  beforeAll(async () => {
    demo = await startDemoApp({ port: 0, logger: false });
  });
  afterAll(async () => {
    await Promise.all(clients.map((c) => c.close().catch(() => undefined)));
    await demo.app.close();
  });

  const ask = async (
    answer: ElicitResult,
    elicitation: { form?: Record<string, unknown>; url?: Record<string, unknown> } = { form: {} },
  ) => {
    let request: Record<string, unknown> | undefined;
    const c = await connectClient(demo.mcpUrl, {
      user: 'mona',
      elicitation,
      onElicit: (params) => {
        request = params;
        return Promise.resolve(answer);
      },
    });
    clients.push(c);
    const result = await c.client.callTool({ name: 'configure-profile', arguments: {} });
    return { result, request };
  };

  it('sends the whole restricted schema and accepts an answer using every field kind', async () => {
    const { result, request } = await ask({ action: 'accept', content: FULL });
    expect(request).toMatchObject({ mode: 'form', message: 'Set up your profile', requestedSchema: profileForm.schema });
    expect(result.isError).toBeFalsy();
    expect(textOf(result)).toBe('Profile saved for Mona (team plan, interests: ai, ops)');
  });

  it('applies schema defaults for omitted optional fields', async () => {
    const { result } = await ask({ action: 'accept', content: { displayName: 'Min', email: 'min@example.com', interests: ['web'] } });
    expect(textOf(result)).toBe('Profile saved for Min (free plan, interests: web)');
  });

  it.each([
    ['decline', 'Profile not changed'],
    ['cancel', 'Cancelled'],
  ] as const)('reports %s', async (action, expected) => {
    const { result } = await ask({ action });
    expect(textOf(result)).toBe(expected);
  });

  it.each([
    ['a missing required field', { email: 'a@b.io', interests: ['ai'] }, /displayName/],
    ['an extra key', { ...FULL, admin: true }, /admin is not a field of this form/],
    ['a wrong type', { ...FULL, age: 'thirty' }, /age/],
    ['out of bounds', { ...FULL, age: 7 }, /age/],
    ['a bad e-mail', { ...FULL, email: 'nope' }, /email/],
    ['a bad enum value', { ...FULL, theme: 'neon' }, /theme/],
    ['too many items', { ...FULL, interests: ['ai', 'web', 'ops'] }, /interests/],
  ])('refuses %s with a tool error naming the field', async (_, content, field) => {
    const { result } = await ask({ action: 'accept', content });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(field);
    expect(textOf(result)).not.toMatch(/Profile saved/);
  });

  it('refuses an accept without content (which the SDK lets through)', async () => {
    const { result } = await ask({ action: 'accept' });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(/\(answer\) must be an object of field values/);
  });

  it('gives a client with no elicitation support a link to the hosted form page (the link rung)', async () => {
    const { result, request } = await ask({ action: 'accept' }, null as never);
    expect(request).toBeUndefined();
    expect(result.isError).toBeFalsy();
    expect(textOf(result)).toMatch(/http:\/\/127\.0\.0\.1:\d+\/elicit\/[0-9a-f-]{36}\/form/);
    expect(result.structuredContent).toMatchObject({ status: 'pending', url: expect.stringMatching(/\/form$/) as unknown });
  });
});

describe('hosted form fallback end to end: a URL-only client answers configure-profile on the page', () => {
  let demo: DemoApp;

  beforeAll(async () => {
    demo = await startDemoApp({ port: 0, logger: false });
  });
  afterAll(async () => {
    await demo.app.close();
  });

  it('opens the hosted form, re-prompts invalid input, stores the typed answer and resumes the tool', async () => {
    const { submitForm } = await import('../support/page-form.js');
    const request = (await import('supertest')).default;
    const cookie = { Cookie: 'demo_user=nina' };
    let pagePath = '';
    let browser: Promise<void> | undefined;
    /** The user in the browser: opens the page, submits once wrong, then right. */
    const fillThePage = async () => {
      const page = await request(demo.url).get(pagePath).set(cookie).expect(200);
      expect(page.text).toContain('Display name');
      const invalid = await submitForm(demo.url, pagePath, { displayName: 'Nina', email: 'not-an-email', interests: 'ai' }, cookie);
      expect(invalid.status).toBe(400);
      expect(invalid.text).toContain('must be an e-mail address');
      const ok = await submitForm(
        demo.url,
        pagePath,
        { displayName: 'Nina', email: 'nina@example.com', interests: 'web', plan: 'enterprise' },
        cookie,
      );
      expect(ok.status).toBe(200);
    };
    const c = await connectClient(demo.mcpUrl, {
      user: 'nina',
      elicitation: { url: {} },
      onElicit: (params) => {
        if (params.mode !== 'url') return Promise.reject(new Error('expected the hosted page (URL mode)'));
        pagePath = new URL(params.url).pathname;
        browser = new Promise((r) => setTimeout(r, 20)).then(fillThePage);
        return Promise.resolve({ action: 'accept' });
      },
    });
    try {
      const result = await c.client.callTool({ name: 'configure-profile', arguments: {} }, undefined, { timeout: 15_000 });
      await browser;
      expect(pagePath).toMatch(/^\/elicit\/[0-9a-f-]{36}\/form$/);
      expect(textOf(result)).toBe('Profile saved for Nina (enterprise plan, interests: web)');
    } finally {
      await c.close();
    }
  });
});
