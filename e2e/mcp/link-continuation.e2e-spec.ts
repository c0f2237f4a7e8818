/**
 * The link rung never asks an answered question again (#42 item 3): `plan-release` (a version form, then a confirm
 * page) from clients that show no elicitation at all (the Inspector's CLI, `mcpc`), on 2025-11-25 and on 2026-07-28.
 * Each call ends with the link to the next open question; the person answers it; the next call goes on from there:
 * the version page, the confirm page, then the result: never the version page a second time. A client that declares
 * the Tasks extension but no elicitation (the Inspector's CLI) gets the same links, as its tasks' results (#42 item 2).
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startDemoApp, type DemoApp } from '../../examples/demo/demo-app.js';
import { submitPage } from '../../src/testing/index.js';
import { connectClient, textOf, type TestClient } from '../support/mcp-client.js';
import { connectV2Client, type V2TestClient } from '../support/mcp-v2-client.js';
import { callTask, TASKS, waitForTask } from '../support/mcp-tasks-client.js';

describe('plan-release over links, from a client without elicitation', () => {
  let demo: DemoApp;
  const clients: Array<TestClient | V2TestClient> = [];

  beforeAll(async () => {
    demo = await startDemoApp({ port: 0, logger: false, throttleLimit: 100_000 });
  });
  afterAll(async () => {
    await Promise.all(clients.map((c) => c.close().catch(() => undefined)));
    await demo.app.close();
  });

  /** The first page link of a text. */
  const linkIn = (text: string) => /(https?:\/\/\S+\/elicit\/[0-9a-f-]{36}\/[a-z-]+)/.exec(text)?.[1];

  it.each(['2025-11-25', '2026-07-28'] as const)(
    'on %s: the version page, the confirm page, then the result',
    async (era) => {
      const user = `links-${era}`;
      const cookie = `demo_user=${user}`;
      const call: () => Promise<unknown> =
        era === '2025-11-25'
          ? await connectClient(demo.mcpUrl, { user, elicitation: null }).then((c) => {
              clients.push(c);
              return () => c.client.callTool({ name: 'plan-release', arguments: { app: 'docs' } });
            })
          : await connectV2Client(demo.mcpUrl, { user, elicitation: null }).then((c) => {
              clients.push(c);
              return () => c.client.callTool({ name: 'plan-release', arguments: { app: 'docs' } });
            });

      const first = textOf(await call());
      const versionPage = linkIn(first);
      expect(versionPage).toMatch(/\/form$/);
      expect((await submitPage(versionPage!, { version: '4.2.0' }, { cookie })).status).toBe(200);

      const second = textOf(await call());
      const confirmPage = linkIn(second);
      expect(confirmPage).toMatch(/\/confirm$/);
      expect((await submitPage(confirmPage!, { action: 'confirm' }, { cookie })).status).toBe(200);

      const third = textOf(await call());
      expect(third).toMatch(/^Released docs 4\.2\.0 \(ticket REL-[\w-]{6}\)$/);
    },
    30_000,
  );

  it('a Tasks client without elicitation: each task completes with the link to the next question, never an error', async () => {
    const user = 'links-tasks';
    const cookie = `demo_user=${user}`;
    const c = await connectV2Client(demo.mcpUrl, { user, elicitation: null, extensions: { [TASKS]: {} } });
    clients.push(c);
    const run = async () => {
      const { taskId } = await callTask(c, 'plan-release', { app: 'wiki' });
      const done = await waitForTask(c, String(taskId), (t) => t.status === 'completed');
      expect(done.result?.isError).toBeFalsy();
      return done.result?.content[0]?.text ?? '';
    };
    const versionPage = linkIn(await run());
    expect(versionPage).toMatch(/\/form$/);
    expect((await submitPage(versionPage!, { version: '1.0.1' }, { cookie })).status).toBe(200);
    const confirmPage = linkIn(await run());
    expect(confirmPage).toMatch(/\/confirm$/);
    expect((await submitPage(confirmPage!, { action: 'confirm' }, { cookie })).status).toBe(200);
    expect(await run()).toMatch(/^Released wiki 1\.0\.1 \(ticket REL-[\w-]{6}\)$/);
  }, 30_000);
});
