/**
 * The Tasks guide's client, run as it is pasted (`examples/readme/task-client.ts`, plain `fetch`): the demo's
 * `plan-release` as a task, its form question answered through `tasks/update`, its page question acknowledged and then
 * answered by the person in the browser, and its result read from the task.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startDemoApp, type DemoApp } from '../../examples/demo/demo-app.js';
import { runTask, type TaskQuestion } from '../../examples/readme/task-client.js';
import { submitPage } from '../../src/testing/index.js';

describe("the Tasks guide's client (plain fetch)", () => {
  let demo: DemoApp;

  beforeAll(async () => {
    demo = await startDemoApp({ port: 0, logger: false, throttleLimit: 100_000 });
  });
  afterAll(async () => {
    await demo.app.close();
  });

  it('drives plan-release to its result: the form answered, the page acknowledged and then filled in by the person', async () => {
    const asked: TaskQuestion[] = [];
    const pages: Array<Promise<unknown>> = [];
    const result = await runTask(demo.mcpUrl, { authorization: 'Bearer guide-client' }, 'plan-release', { app: 'guide' }, (question) => {
      asked.push(question);
      if (question.mode === 'url') {
        // Shown to the person, who answers on the page a moment later.
        pages.push(
          new Promise((resolve) => setTimeout(resolve, 200)).then(() =>
            submitPage(question.url!, { action: 'confirm' }, { cookie: 'demo_user=guide-client' }),
          ),
        );
        return Promise.resolve({ action: 'accept' });
      }
      return Promise.resolve({ action: 'accept', content: { version: '3.3.3' } });
    });
    expect(asked.map((q) => q.mode ?? 'form')).toEqual(['form', 'url']);
    expect((await Promise.all(pages)).every((page) => (page as { status: number }).status === 200)).toBe(true);
    expect((result as { content: Array<{ text: string }> }).content[0].text).toMatch(/^Released guide 3\.3\.3 \(ticket REL-[\w-]{6}\)$/);
  }, 30_000);
});
