/** The demo's sign-in never builds a header from unchecked input: a bad `returnTo` is dropped, not a 500. */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startDemoApp, type DemoApp } from '../../examples/demo/demo-app.js';

describe('GET /demo/login returnTo', () => {
  let demo: DemoApp;
  beforeAll(async () => {
    demo = await startDemoApp({ port: 0, logger: false });
  });
  afterAll(async () => {
    await demo.app.close();
  });

  const login = (returnTo: string) => fetch(`${demo.url}/demo/login?user=alice&returnTo=${returnTo}`, { redirect: 'manual' });

  it.each([
    ['a NUL', '/%00/x'],
    ['a control character', '/elicit/%07'],
    ['a character above U+00FF', '/%E3%81%82'],
    ['a Latin-1 character', '/caf%C3%A9'],
    ['a space', '/a%20b'],
    ['another site', '//evil.example/x'],
    ['a backslash trick', '/%5Cevil.example'],
  ])('drops a returnTo with %s: signed in, no redirect, no 500', async (_, returnTo) => {
    const res = await login(returnTo);
    expect(res.status).toBe(200);
    expect(res.headers.get('location')).toBeNull();
    expect(res.headers.get('set-cookie')).toContain('demo_user=alice');
  });

  it('the demo limits slow clients: 20 s for the headers, 30 s for the whole request (README "Server timeouts")', () => {
    const server = demo.app.getHttpServer() as { headersTimeout: number; requestTimeout: number };
    expect(server.headersTimeout).toBe(20_000);
    expect(server.requestTimeout).toBe(30_000);
  });

  it('follows a path on this site', async () => {
    const res = await login(encodeURIComponent('/elicit/00000000-0000-4000-8000-000000000000/api-key'));
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe('/elicit/00000000-0000-4000-8000-000000000000/api-key');
  });
});
