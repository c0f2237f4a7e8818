import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { INestApplication } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { createElicitationTestClient, submitPage, type TestToolResult } from 'nestjs-mcp-elicitation/testing';
import { McpBothErasModule as AppModule } from './mcp-both-eras.controller.js'; // your app's module

// Your app on a fixed test port, with ElicitationModule's baseUrl set to it (page URLs are built from it).
const ORIGIN = 'http://127.0.0.1:4100';
// Whatever your MCP authorization and your page login accept in tests.
const ALICE = { headers: { Authorization: 'Bearer test-token-alice' }, cookie: 'session=test-session-alice' };
const text = (result: TestToolResult) => result.content.map((block) => block.text ?? '').join('');

describe.each(['2025-11-25', '2026-07-28'] as const)('tools on %s', (era) => {
  let app: INestApplication;
  beforeAll(async () => {
    app = (await Test.createTestingModule({ imports: [AppModule] }).compile()).createNestApplication({ logger: false });
    await app.listen(4100, '127.0.0.1');
  });
  afterAll(() => app.close());

  it('asks for the API key on its page, then connects', async () => {
    const client = await createElicitationTestClient({ url: `${ORIGIN}/mcp`, era, headers: ALICE.headers });
    try {
      let call: Promise<TestToolResult> | undefined;
      if (era === '2025-11-25') {
        // requireAnswer ends the call with -32042 (the SDK's UrlElicitationRequiredError), its URL recorded.
        await expect(client.callTool('connect-service', { service: 'github' })).rejects.toMatchObject({ code: -32042 });
      } else {
        // input_required: the client accepts the URL and keeps retrying, inside the call, until the page is done.
        call = client.callTool('connect-service', { service: 'github' });
        await client.waitForUrl();
      }
      const page = await submitPage(client.lastUrl()!, { apiKey: 'test-key' }, { cookie: ALICE.cookie });
      expect(page).toEqual({ status: 200, text: expect.stringContaining('The API key was received.') });
      if (call) expect(text(await call)).toBe('Connected to github');
      expect(text(await client.callTool('connect-service', { service: 'github' }))).toBe('Connected to github');
    } finally {
      await client.close();
    }
  });

  it('deletes once the user confirms in the client (form mode)', async () => {
    const client = await createElicitationTestClient({
      url: `${ORIGIN}/mcp`,
      era,
      headers: ALICE.headers,
      capabilities: { form: true },
      answer: () => ({ action: 'accept', content: { confirmed: true } }),
    });
    try {
      expect(text(await client.callTool('delete-file', { path: 'a.txt' }))).toBe('Deleted a.txt');
      expect(client.requests).toEqual([expect.objectContaining({ mode: 'form', message: 'Delete a.txt?' })]);
    } finally {
      await client.close();
    }
  });
});
