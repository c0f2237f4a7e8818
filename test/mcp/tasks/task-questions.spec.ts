/**
 * A task's questions go through the same question engine as a plain call's, with the module's real parts (the
 * lifecycle, the records, the claims of `LinkedQuestions`, the memory store): the kept answer of `requireAnswer` and
 * its claim, the ladder through the modes the task's client declared (the link for a client without elicitation,
 * never a request it did not declare), and the form attempts.
 */
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import type { TestingModule } from '@nestjs/testing';
import type { ElicitationEvent } from '../../../src/core/elicitation.types.js';
import { ElicitationEvents } from '../../../src/events/elicitation-events.js';
import { defineForm } from '../../../src/forms/define-form.js';
import { ElicitationService } from '../../../src/lifecycle/elicitation.service.js';
import { ELICITATION_RESOLVED_OPTIONS } from '../../../src/options/elicitation.constants.js';
import type { ResolvedElicitationOptions } from '../../../src/options/resolved-options.js';
import { PENDING_QUESTION_META_KEY } from '../../../src/mcp/questions/linked-questions.js';
import { taskOfEvent } from '../../../src/mcp/tasks/mcp-tasks.js';
import type { TaskTool } from '../../../src/mcp/tasks/task-runner.js';
import { ElicitationStore } from '../../../src/stores/elicitation-store.js';
import { settleRuns, taskRunnerOf } from '../../support/task-runner.js';
import { compileElicitation } from '../../support/testing-module.js';

const settle = settleRuns;

describe("a task's questions (the question engine, with the module's parts)", () => {
  let ref: TestingModule;
  let options: ResolvedElicitationOptions;

  beforeEach(async () => {
    ref = await compileElicitation({ limits: { createPerMinute: 100_000, maxPendingPerUser: 100_000, maxFormAttempts: 2 } });
    options = ref.get<ResolvedElicitationOptions>(ELICITATION_RESOLVED_OPTIONS);
  });
  afterEach(async () => {
    await ref.close();
  });

  const runner = (tools: Record<string, TaskTool['body']>) => taskRunnerOf(ref, tools);

  it('requireAnswer takes the kept answer without asking, and claims it as a plain call does', async () => {
    const service = ref.get(ElicitationService);
    const { elicitationId } = await service.createUrlElicitation({ kind: 'api-key', message: 'Key?', userId: 'alice', type: 'api-key-gh' });
    expect((await service.complete(elicitationId, { apiKey: 'k-123' })).ok).toBe(true);
    const { tasks, view } = runner({
      connect: async (_args, el) => {
        const { apiKey } = await el.requireAnswer<{ apiKey: string }>({ kind: 'api-key', type: 'api-key-gh', message: 'Key?' });
        return `connected with ${apiKey.length} characters`;
      },
    });
    const { task } = await tasks.start('connect', {}, 'alice', ['form', 'url']);
    await settle();
    expect(await view(task.id)).toMatchObject({ status: 'completed', result: { content: [{ text: 'connected with 5 characters' }] } });
    // No new question was asked, and the kept answer carries this call's claim.
    expect((await service.list({ userId: 'alice' })).map((e) => e.elicitationId)).toEqual([elicitationId]);
    const record = (await ref.get(ElicitationStore).get(elicitationId, Date.now()))!;
    const window = [options.ttlMs + options.retentionMs, record.expiresAt + options.retentionMs] as const;
    expect(await ref.get(ElicitationStore).peekHits!(`asked-spent:${elicitationId}`, ...window)).toBe(1);
  });

  it('a client without elicitation gets the link: the task completes with the link result, and the next task takes the answer', async () => {
    const service = ref.get(ElicitationService);
    const body: TaskTool['body'] = async (args, el) => {
      const outcome = await el.requestUrl({ kind: 'confirm', message: `Deploy ${(args as { app: string }).app}?` });
      return `${outcome.status} via ${outcome.via}`;
    };
    const { tasks, view } = runner({ deploy: body });
    const first = await tasks.start('deploy', { app: 'shop' }, 'alice', []);
    await settle();
    const linked = await view(first.task.id);
    expect(linked.status).toBe('completed');
    expect(linked.result?.isError).toBeUndefined();
    expect(linked.result?.content[0].text).toMatch(
      /^Open this page to continue: https:\/\/mcp\.example\.com\/elicit\/[0-9a-f-]{36}\/confirm/,
    );
    const info = linked.result?._meta?.[PENDING_QUESTION_META_KEY] as { elicitationId: string };
    // The person confirms on the page; the tool called again (a new task) takes that answer.
    expect((await service.complete(info.elicitationId, { confirmed: true })).ok).toBe(true);
    const second = await tasks.start('deploy', { app: 'shop' }, 'alice', []);
    await settle();
    expect(await view(second.task.id)).toMatchObject({ status: 'completed', result: { content: [{ text: 'completed via link' }] } });
  });

  it('never sends a request the client did not declare: a form-only client with fallback [url, link] gets the link, not the bridge', async () => {
    const { tasks, view } = runner({
      deploy: async (_args, el) => (await el.requestUrl({ kind: 'confirm', message: 'Deploy?', fallback: ['url', 'link'] })).status,
    });
    const { task } = await tasks.start('deploy', { app: 'shop' }, 'alice', ['form']);
    await settle();
    const done = await view(task.id);
    expect(done.status).toBe('completed');
    expect(done.inputRequests).toBeUndefined();
    expect(done.result?.content[0].text).toMatch(/^Open this page to continue: /);
  });

  it('a form-only client with the default ladder gets the form bridge, which it declared', async () => {
    const { tasks, view } = runner({ deploy: async (_args, el) => (await el.requestUrl({ kind: 'confirm', message: 'Deploy?' })).status });
    const { task } = await tasks.start('deploy', { app: 'shop' }, 'alice', ['form']);
    await settle();
    const asking = await view(task.id);
    expect(asking.status).toBe('input_required');
    const [request] = Object.values(asking.inputRequests ?? {});
    expect(request.params).toMatchObject({ mode: 'form', requestedSchema: { properties: { finished: { type: 'boolean' } } } });
    expect(String(request.params.message)).toContain('https://mcp.example.com/elicit/');
  });

  it("creates a task's page with the task's id, not a session: the page's events name the task, which the outcome moves on", async () => {
    const service = ref.get(ElicitationService);
    const events: ElicitationEvent[] = [];
    const unsubscribe = ref.get(ElicitationEvents).subscribe((event) => events.push(event));
    const { tasks, view } = runner({ deploy: async (_args, el) => (await el.requestUrl({ kind: 'confirm', message: 'Deploy?' })).status });
    const { task } = await tasks.start('deploy', { app: 'shop' }, 'alice', ['url']);
    await settle();
    expect((await view(task.id)).status).toBe('input_required');
    const [page] = await service.list({ userId: 'alice' });
    const record = (await ref.get(ElicitationStore).get(page.elicitationId, Date.now()))!;
    expect(record).toMatchObject({ taskId: task.id });
    expect(record.sessionId).toBeUndefined();
    expect((await service.complete(page.elicitationId, { confirmed: true })).ok).toBe(true);
    const completed = events.find((e) => e.type === 'completed' && e.elicitationId === page.elicitationId)!;
    expect(taskOfEvent(completed)).toBe(task.id);
    tasks.pageFinished(taskOfEvent(completed)!);
    await settle();
    expect(await view(task.id)).toMatchObject({ status: 'completed', result: { content: [{ text: 'completed' }] } });
    unsubscribe();
  });

  it('reads the task of a page created before records kept one: its session `task:<id>`', () => {
    expect(taskOfEvent({ sessionId: 'task:t-1' })).toBe('t-1');
    expect(taskOfEvent({ sessionId: 'mcp-session-1' })).toBeUndefined();
    expect(taskOfEvent({ taskId: 't-2', sessionId: 'task:t-1' })).toBe('t-2');
    expect(taskOfEvent({})).toBeUndefined();
  });

  it('past limits.maxFormAttempts invalid answers the tool gets ElicitationValidationError, as in both eras', async () => {
    const form = defineForm({
      type: 'object',
      properties: { version: { type: 'string', minLength: 5 } },
      required: ['version'],
    });
    const { tasks, view } = runner({
      release: async (_args, el) => {
        try {
          return (await el.elicit('Version?', form)).action;
        } catch (error) {
          if ((error as Error).name === 'TaskSuspended') throw error;
          return `threw ${(error as Error).name}`;
        }
      },
    });
    const { task } = await tasks.start('release', {}, 'alice', ['form']);
    for (let attempt = 0; attempt < 2; attempt++) {
      await settle();
      const asking = await view(task.id);
      const [key] = Object.keys(asking.inputRequests ?? {});
      await tasks.update(task.id, 'alice', { [key]: { action: 'accept', content: { version: 'soon' } } });
    }
    await settle();
    expect(await view(task.id)).toMatchObject({ status: 'completed', result: { content: [{ text: 'threw ElicitationValidationError' }] } });
  });
});
