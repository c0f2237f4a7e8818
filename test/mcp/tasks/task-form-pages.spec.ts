/**
 * A task's form question asked in form mode also gets a page (the same form on the hosted form page), so that the
 * inbox lists it and the notifiers reach the person: the first answer to reach the task, the client's or the
 * page's, is taken, the other page closed. With the module's real parts and the memory store.
 */
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import type { TestingModule } from '@nestjs/testing';
import { defineForm } from '../../../src/forms/define-form.js';
import { ElicitationService } from '../../../src/lifecycle/elicitation.service.js';
import type { ElicitationModuleOptions } from '../../../src/options/elicitation-options.interface.js';
import type { TaskTool } from '../../../src/mcp/tasks/task-runner.js';
import { ElicitationStore } from '../../../src/stores/elicitation-store.js';
import { settleRuns, taskRunnerOf } from '../../support/task-runner.js';
import { compileElicitation } from '../../support/testing-module.js';

const settle = settleRuns;

const TASK_TTL_MS = 3_600_000;
const form = defineForm({
  type: 'object',
  properties: { version: { type: 'string', minLength: 5 } },
  required: ['version'],
});

describe("a task's form question has a page too (inbox, notifications)", () => {
  let ref: TestingModule;
  let service: ElicitationService;

  const compile = async (more: Partial<ElicitationModuleOptions> = {}) => {
    ref = await compileElicitation({ limits: { createPerMinute: 100_000, maxPendingPerUser: 100_000, maxFormAttempts: 3 }, ...more });
    service = ref.get(ElicitationService);
  };
  beforeEach(() => compile());
  afterEach(async () => {
    await ref.close();
  });

  /** A runner whose `release` tool asks for a version in a form and says what it got. */
  function runner() {
    const release: TaskTool['body'] = async (_args, el) => {
      const answer = await el.elicit('Which version?', form);
      return answer.action === 'accept' ? `release ${answer.content.version}` : answer.action;
    };
    const { tasks, view } = taskRunnerOf(ref, { release }, TASK_TTL_MS);
    /** Starts a task of a form-mode client; resolves it waiting, with its one input request's key and its page. */
    const asked = async () => {
      const { task } = await tasks.start('release', { app: 'shop' }, 'alice', ['form', 'url']);
      await settle();
      const waiting = await view(task.id);
      expect(waiting.status).toBe('input_required');
      const [[key, request]] = Object.entries(waiting.inputRequests ?? {});
      const { questions } = await service.listOpen('alice');
      return { task, key, request, questions };
    };
    return { tasks, view, asked };
  }

  it('asks the client in form mode and lists the same question in the inbox, with its task, its tool and a form page that ends with the task', async () => {
    const { asked } = runner();
    const before = Date.now();
    const { task, request, questions } = await asked();
    // The client gets the form itself (not the bridge, not a link).
    expect(request.method).toBe('elicitation/create');
    expect(request.params).toMatchObject({ mode: 'form', message: 'Which version?', requestedSchema: { required: ['version'] } });
    expect(questions).toHaveLength(1);
    const [question] = questions;
    expect(question).toMatchObject({ kind: 'form', message: 'Which version?', taskId: task.id, askedBy: { tool: 'release' } });
    expect(question.url).toBe(`https://mcp.example.com/elicit/${question.elicitationId}/form`);
    expect(question.expiresAt.getTime()).toBeLessThanOrEqual(task.expiresAt);
    expect(question.expiresAt.getTime()).toBeGreaterThan(task.expiresAt - 2_000);
    expect(task.expiresAt).toBeGreaterThanOrEqual(before + TASK_TTL_MS);
  });

  it('the client answers first: the task goes on with its answer and the page is cancelled (gone from the inbox)', async () => {
    const { tasks, view, asked } = runner();
    const { task, key, questions } = await asked();
    await tasks.update(task.id, 'alice', { [key]: { action: 'accept', content: { version: '2.0.0' } } });
    await settle();
    expect(await view(task.id)).toMatchObject({ status: 'completed', result: { content: [{ text: 'release 2.0.0' }] } });
    expect(await service.getStatus(questions[0].elicitationId)).toMatchObject({ status: 'cancelled' });
    expect((await service.listOpen('alice')).questions).toEqual([]);
    // The person, late on the page, cannot answer any more: nothing changes.
    expect((await service.complete(questions[0].elicitationId, { version: '3.0.0' })).ok).toBe(false);
    await settle();
    expect(await view(task.id)).toMatchObject({ result: { content: [{ text: 'release 2.0.0' }] } });
  });

  it("the person answers on the page first: the task goes on with the page's answer, and the client's later reply changes nothing", async () => {
    const { tasks, view, asked } = runner();
    const { task, key, questions } = await asked();
    expect((await service.complete(questions[0].elicitationId, { version: '1.2.3-rc' })).ok).toBe(true);
    // The page's event moves the task on (McpTasks, on whichever instance the page was answered).
    tasks.pageFinished(task.id);
    await settle();
    expect(await view(task.id)).toMatchObject({ status: 'completed', result: { content: [{ text: 'release 1.2.3-rc' }] } });
    await tasks.update(task.id, 'alice', { [key]: { action: 'accept', content: { version: '9.9.9' } } });
    await settle();
    expect(await view(task.id)).toMatchObject({ result: { content: [{ text: 'release 1.2.3-rc' }] } });
  });

  it("a decline on the page is the person's decline, however soon", async () => {
    await ref.close();
    await compile({ instantDeclineMs: 60_000 });
    const { tasks, view, asked } = runner();
    const { task, questions } = await asked();
    expect((await service.decline(questions[0].elicitationId)).ok).toBe(true);
    tasks.pageFinished(task.id);
    await settle();
    expect(await view(task.id)).toMatchObject({ status: 'completed', result: { content: [{ text: 'decline' }] } });
  });

  it('an invalid reply from the client is asked again naming the field, on the same page', async () => {
    const { tasks, view, asked } = runner();
    const { task, key, questions } = await asked();
    await tasks.update(task.id, 'alice', { [key]: { action: 'accept', content: { version: 'v1' } } });
    await settle();
    const again = await view(task.id);
    expect(again.status).toBe('input_required');
    const [[key2, request2]] = Object.entries(again.inputRequests ?? {});
    expect(key2).not.toBe(key);
    expect(String(request2.params.message)).toContain('version');
    const open = (await service.listOpen('alice')).questions;
    expect(open.map((q) => q.elicitationId)).toEqual([questions[0].elicitationId]);
    // And the page still answers it.
    expect((await service.complete(questions[0].elicitationId, { version: '4.5.6' })).ok).toBe(true);
    tasks.pageFinished(task.id);
    await settle();
    expect(await view(task.id)).toMatchObject({ status: 'completed', result: { content: [{ text: 'release 4.5.6' }] } });
  });

  it('a cancelled task cancels its form page', async () => {
    const { tasks, asked } = runner();
    const { task, questions } = await asked();
    await tasks.cancel(task.id, 'alice');
    expect(await service.getStatus(questions[0].elicitationId)).toMatchObject({ status: 'cancelled' });
  });

  it('a page the store refuses (the quota) leaves the form question to the client alone', async () => {
    await ref.close();
    await compile({ limits: { createPerMinute: 100_000, maxPendingPerUser: 1 } });
    await service.createUrlElicitation({ kind: 'confirm', message: 'Something else?', userId: 'alice' });
    const { tasks, view, asked } = runner();
    const { task, key, questions } = await asked();
    expect(questions.map((q) => q.message)).toEqual(['Something else?']);
    await tasks.update(task.id, 'alice', { [key]: { action: 'accept', content: { version: '2.0.0' } } });
    await settle();
    expect(await view(task.id)).toMatchObject({ status: 'completed', result: { content: [{ text: 'release 2.0.0' }] } });
    expect(await ref.get(ElicitationStore).listByUser('alice', Date.now())).toHaveLength(1);
  });
});
