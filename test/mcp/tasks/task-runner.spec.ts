/**
 * The task runner on a memory task store with a clock of the test's own: the rules of a task's life that the e2e
 * flows do not reach one by one (parallel questions, the re-ask limit, keys never reused, a cancel during a run,
 * expiry, the cap on open tasks, a lease taken over).
 */
import { describe, expect, it } from '@jest/globals';
import { defineForm } from '../../../src/forms/define-form.js';
import { decodeBody, detailedTask } from '../../../src/mcp/tasks/task-body.js';
import { TaskRunner, type TaskTool } from '../../../src/mcp/tasks/task-runner.js';
import type { ToolElicitation } from '../../../src/mcp/tool-elicitation.js';
import { MemoryTasks } from '../../../src/stores/memory-tasks.js';
import { stepKey } from '../../../src/mcp/questions/run-steps.js';

const T0 = 1_800_000_000_000;
const form = (field: string) =>
  defineForm({ type: 'object', properties: { [field]: { type: 'string', minLength: 2 } }, required: [field] });

/**
 * The parts a task's questions share with a plain call's, as far as these runs reach them: no earlier call asked
 * anything (no kept answer, no question found by its askKey), and each page's outcome is this task's to claim.
 */
function questionParts() {
  return {
    records: { keptAnswer: () => Promise.resolve(undefined), urlFor: (id: string) => `http://app.test/elicit/${id}/confirm` } as never,
    linked: { earlier: () => Promise.resolve(undefined), claim: () => Promise.resolve(true) } as never,
    telemetry: { created: () => undefined, finished: () => undefined, fallback: () => undefined },
    fallback: { page: ['url', 'form-bridge', 'link'] as const, form: ['form', 'url', 'link'] as const },
    maxFormAttempts: 2,
    instantDeclineMs: 0,
    maxStepResultBytes: 512,
  } as const;
}

/** Lets the runner's scheduled runs (setImmediate) and their store calls finish. */
const settle = async () => {
  for (let i = 0; i < 20; i++) await new Promise((r) => setImmediate(r));
};

function setUp(
  tools: Record<string, TaskTool['body']>,
  settings: Partial<{ maxOpenPerUser: number; maxOpenAnonymous: number; leaseMs: number; ttlMs: number }> = {},
) {
  const clock = { now: T0 };
  const store = new MemoryTasks();
  const service = { cancelled: [] as string[], page: { status: 'pending' } as { status: string; data?: unknown } };
  const runner = new TaskRunner({
    store,
    questions: {
      ...questionParts(),
      service: {
        createUrlElicitation: () =>
          Promise.resolve({ elicitationId: 'e1', url: 'http://app.test/elicit/e1/confirm', expiresAt: new Date(T0) }),
        getResult: () => Promise.resolve(service.page as never),
        decline: () => Promise.reject(new Error('unused')),
        cancel: (id: string) => (service.cancelled.push(id), Promise.resolve({ ok: true }) as never),
      },
    },
    settings: {
      ttlMs: settings.ttlMs ?? 60_000,
      pollIntervalMs: 1_000,
      maxOpenPerUser: settings.maxOpenPerUser ?? 5,
      leaseMs: settings.leaseMs ?? 10_000,
      maxFinishedPerUser: 100,
      maxFinished: 10_000,
      maxOpenAnonymous: settings.maxOpenAnonymous ?? 2,
    },
    tools: new Map(Object.entries(tools).map(([name, body]) => [name, { body }])),
    now: () => clock.now,
  });
  const view = async (id: string, user = 'u1') => {
    const { task, body } = await runner.read(id, user);
    return detailedTask(task, body) as {
      status: string;
      inputRequests?: Record<string, { params: { message: string } }>;
      result?: unknown;
    };
  };
  return { clock, store, runner, view, service };
}

describe('TaskRunner', () => {
  it('asks parallel questions at once, keeps a partial answer, and runs again only when both are answered', async () => {
    let runs = 0;
    const { runner, view } = setUp({
      both: async (_args, elicitation: ToolElicitation) => {
        runs++;
        const [a, b] = await Promise.all([elicitation.elicit('A?', form('a')), elicitation.elicit('B?', form('b'))]);
        return `${a.action === 'accept' ? a.content.a : a.action}+${b.action === 'accept' ? b.content.b : b.action}`;
      },
    });
    const { task } = await runner.start('both', {}, 'u1', ['form']);
    await settle();
    const asking = await view(task.id);
    expect(asking.status).toBe('input_required');
    const [first, second] = Object.keys(asking.inputRequests ?? {});
    expect([first, second].every(Boolean)).toBe(true);
    expect(runs).toBe(1);

    await runner.update(task.id, 'u1', { [first]: { action: 'accept', content: { a: 'aa' } } });
    await settle();
    const partial = await view(task.id);
    expect(partial.status).toBe('input_required');
    expect(Object.keys(partial.inputRequests ?? {})).toEqual([second]);
    expect(runs).toBe(1);

    await runner.update(task.id, 'u1', { [second]: { action: 'decline' } });
    await settle();
    expect(await view(task.id)).toMatchObject({ status: 'completed', result: { content: [{ type: 'text', text: 'aa+decline' }] } });
    expect(runs).toBe(2);
  });

  it('asks an invalid answer again under a new key, and throws ElicitationValidationError at limits.maxFormAttempts (the tool error, as in both eras)', async () => {
    const { runner, view } = setUp({
      one: async (_args, elicitation: ToolElicitation) => (await elicitation.elicit('Name?', form('name'))).action,
    });
    const { task } = await runner.start('one', {}, 'u1', ['form']);
    await settle();
    const keys: string[] = [];
    for (let attempt = 0; attempt < 2; attempt++) {
      const asking = await view(task.id);
      const [key, request] = Object.entries(asking.inputRequests ?? {})[0];
      expect(keys).not.toContain(key);
      keys.push(key);
      if (attempt === 1) expect(request.params.message).toContain('Please correct: name');
      await runner.update(task.id, 'u1', { [key]: { action: 'accept', content: { name: 'x' } } });
      await settle();
    }
    // The answered keys are ignored from now on.
    await runner.update(task.id, 'u1', { [keys[0]]: { action: 'accept', content: { name: 'good' } } });
    await settle();
    // Never a decline the person did not give: the tool's own error result, naming the field (as a plain call's).
    expect(await view(task.id)).toMatchObject({
      status: 'completed',
      result: { isError: true, content: [{ text: expect.stringContaining('name') }] },
    });
  });

  it('waits on a page without running again (no run while nothing changed), and runs when the page is finished', async () => {
    let runs = 0;
    const { runner, view, service } = setUp({
      approve: async (_args, elicitation: ToolElicitation) => {
        runs++;
        const outcome = await elicitation.requestUrl({ kind: 'confirm', message: 'Go?' });
        return outcome.status;
      },
    });
    const { task } = await runner.start('approve', {}, 'u1', ['form', 'url']);
    await settle();
    const asking = await view(task.id);
    const [key, request] = Object.entries(asking.inputRequests ?? {})[0];
    expect(request).toMatchObject({ method: 'elicitation/create', params: { mode: 'url', url: 'http://app.test/elicit/e1/confirm' } });
    await runner.update(task.id, 'u1', { [key]: { action: 'accept' } });
    for (let i = 0; i < 5; i++) await settle();
    expect(runs).toBe(2);
    expect(await view(task.id)).toMatchObject({ status: 'working', statusMessage: 'Waiting for the person to finish on the page.' });
    for (let i = 0; i < 5; i++) await settle();
    expect(runs).toBe(2);
    service.page = { status: 'completed', data: { confirmed: true } };
    runner.pageFinished(task.id);
    for (let i = 0; i < 3; i++) await settle();
    expect(runs).toBe(3);
    expect(await view(task.id)).toMatchObject({ status: 'completed', result: { content: [{ text: 'completed' }] } });
  });

  it('discards what a run ends with once the task was cancelled meanwhile', async () => {
    let release!: () => void;
    const { runner, view } = setUp({
      slow: async () => {
        await new Promise<void>((r) => (release = r));
        return 'done';
      },
    });
    const { task } = await runner.start('slow', {}, 'u1', ['form']);
    await settle();
    await runner.cancel(task.id, 'u1');
    release();
    await settle();
    expect((await view(task.id)).status).toBe('cancelled');
  });

  it("refuses another user's task as not found, forgets a task at its ttl, and caps a user's open tasks", async () => {
    const { runner, clock } = setUp(
      { wait: async (_a, e: ToolElicitation) => e.elicit('?', form('x')) },
      { maxOpenPerUser: 2, ttlMs: 5_000 },
    );
    const { task } = await runner.start('wait', {}, 'u1', ['form']);
    await runner.start('wait', {}, 'u1', ['form']);
    await expect(runner.start('wait', {}, 'u1', ['form'])).rejects.toMatchObject({
      code: -32005,
      data: { limit: 'tasks.maxOpenPerUser', value: 2 },
    });
    await settle();
    await expect(runner.read(task.id, 'u2')).rejects.toMatchObject({ code: -32602 });
    await expect(runner.update(task.id, 'u2', {})).rejects.toMatchObject({ code: -32602 });
    clock.now = T0 + 5_000;
    await expect(runner.read(task.id, 'u1')).rejects.toMatchObject({ code: -32602 });
    // Expired tasks free their places.
    await expect(runner.start('wait', {}, 'u1', ['form'])).resolves.toBeDefined();
  });

  it("caps tasks bound to no user together (tasks.maxOpenAnonymous), apart from any user's", async () => {
    const { runner } = setUp({ wait: (_args, elicitation: ToolElicitation) => elicitation.elicit('A?', form('a')) }, { maxOpenPerUser: 1 });
    await runner.start('wait', {}, '', ['form']);
    await runner.start('wait', {}, '', ['form']);
    await expect(runner.start('wait', {}, '', ['form'])).rejects.toMatchObject({
      code: -32005,
      message: expect.stringContaining('callers without a verified user (tasks.maxOpenAnonymous = 2)'),
      data: { limit: 'tasks.maxOpenAnonymous', value: 2 },
    });
    // A user's cap is their own: the anonymous tasks take nothing of it.
    await runner.start('wait', {}, 'u1', ['form']);
    await expect(runner.start('wait', {}, 'u1', ['form'])).rejects.toMatchObject({ data: { limit: 'tasks.maxOpenPerUser', value: 1 } });
    await settle();
  });

  it('takes over a task whose lease ran out (its instance died mid-run) at the next read, and runs it again', async () => {
    let runs = 0;
    const { runner, store, clock, view } = setUp({ work: () => (runs++, 'ok') }, { leaseMs: 1_000 });
    const { task } = await runner.start('work', {}, 'u1', ['form']);
    // Another instance holds the lease and never ends its run.
    await settle();
    const stored = (await store.getTask(task.id, clock.now))!;
    expect(stored.status).toBe('completed');
    // Its lease is timed by the store's clock (this process's, for the memory store), whatever the instances' say.
    const dead = { ...stored, version: stored.version + 1, status: 'working' as const, lease: { owner: 'dead', until: 0, grantMs: 150 } };
    await store.putTask(dead, clock.now);
    await view(task.id);
    await settle();
    expect(runs).toBe(1);
    // An instance whose clock runs far ahead does not take over a lease that still holds by the store's clock.
    clock.now += 30_000;
    await view(task.id);
    await settle();
    expect(runs).toBe(1);
    await new Promise((resolve) => setTimeout(resolve, 200));
    await view(task.id);
    await settle();
    expect(runs).toBe(2);
    const after = (await store.getTask(task.id, clock.now))!;
    expect(after.status).toBe('completed');
    expect(after.lease).toBeUndefined();
    expect(decodeBody(after).result).toEqual({ content: [{ type: 'text', text: 'ok' }] });
  });

  it('leaves a due task to an instance that has its tool: one without it never takes the lease nor writes the task', async () => {
    let runs = 0;
    const { runner, store, clock } = setUp({ work: () => (runs++, 'ok') }, { leaseMs: 1_000 });
    // The other instance: the same store, no tool registered (a server not built there yet).
    const bare = new TaskRunner({
      store,
      questions: { ...questionParts(), service: {} as never },
      settings: {
        ttlMs: 60_000,
        pollIntervalMs: 1_000,
        maxOpenPerUser: 5,
        leaseMs: 1_000,
        maxFinishedPerUser: 100,
        maxFinished: 10_000,
        maxOpenAnonymous: 100,
      },
      tools: new Map(),
      now: () => clock.now,
    });
    const { task } = await runner.start('work', {}, 'u1', ['form']);
    await settle();
    // Made due again (as a page finished on the bare instance would), with no lease, long enough ago to look orphaned.
    const done = (await store.getTask(task.id, clock.now))!;
    const due = {
      ...done,
      version: done.version + 1,
      status: 'working' as const,
      body: JSON.stringify({ ...decodeBody(done), due: true }),
    };
    await store.putTask(due, clock.now);
    clock.now += 2_000;
    for (let i = 0; i < 3; i++) {
      await bare.read(task.id, 'u1');
      await settle();
    }
    const untouched = (await store.getTask(task.id, clock.now))!;
    expect(untouched.version).toBe(due.version);
    expect(untouched.lease).toBeUndefined();
    // The instance with the tool takes it over at its next read and runs it.
    await runner.read(task.id, 'u1');
    await settle();
    expect(runs).toBe(2);
    expect((await store.getTask(task.id, clock.now))!.status).toBe('completed');
  });

  describe('steps (elicitation.step)', () => {
    it('runs a step once across the runs: written to the task before the body goes on, given back without running it, under the same key', async () => {
      const effects: string[] = [];
      const seenInStore: Array<string | undefined> = [];
      let runs = 0;
      const { runner, store, clock, view } = setUp({
        ticket: async (_args, elicitation: ToolElicitation) => {
          runs++;
          const ticket = await elicitation.step('open-ticket', ({ idempotencyKey }) => {
            effects.push(idempotencyKey);
            return { id: `T-${effects.length}`, at: new Date(T0) };
          });
          // Recorded in the stored task, not only in this run's copy, before the next line runs.
          seenInStore.push(decodeBody((await store.getTask(taskId, clock.now))!).steps?.['open-ticket']);
          const answer = await elicitation.elicit('Approve?', form('by'));
          return `${ticket.id} ${String(ticket.at)} ${answer.action === 'accept' ? answer.content.by : answer.action}`;
        },
      });
      const { task } = await runner.start('ticket', {}, 'u1', ['form']);
      const taskId = task.id;
      await settle();
      const asking = await view(task.id);
      expect(asking.status).toBe('input_required');
      const [key] = Object.keys(asking.inputRequests ?? {});
      await runner.update(task.id, 'u1', { [key]: { action: 'accept', content: { by: 'bob' } } });
      await settle();
      // The JSON round trip on the first run as on the second: the Date is its JSON string both times.
      expect(await view(task.id)).toMatchObject({
        status: 'completed',
        result: { content: [{ text: `T-1 ${new Date(T0).toISOString()} bob` }] },
      });
      expect(runs).toBe(2);
      expect(effects).toEqual([stepKey(task.id, 'open-ticket')]);
      expect(effects[0]).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(effects[0]).not.toContain(task.id);
      expect(seenInStore).toEqual([expect.stringContaining('T-1'), expect.stringContaining('T-1')]);
    });

    it('a run that lost the task while its step ran records nothing and stops there (the new owner runs the step again, same key)', async () => {
      const effects: string[] = [];
      let after = 0;
      const { runner, store, clock } = setUp({
        lost: async (_args, elicitation: ToolElicitation) => {
          await elicitation.step('charge', async ({ idempotencyKey }) => {
            effects.push(idempotencyKey);
            // Meanwhile another instance takes the task over (a new fencing token under its own lease).
            const current = (await store.getTask(taskId, clock.now))!;
            const body = decodeBody(current);
            await store.putTask(
              {
                ...current,
                version: current.version + 1,
                lease: { owner: 'other', until: clock.now + 60_000, grantMs: 60_000 },
                body: JSON.stringify({ ...body, fence: (body.fence ?? 0) + 1 }),
              },
              clock.now,
            );
            return 'charged';
          });
          after++;
          return 'done';
        },
      });
      const { task } = await runner.start('lost', {}, 'u1', ['form']);
      const taskId = task.id;
      await settle();
      const stored = (await store.getTask(task.id, clock.now))!;
      expect(stored.status).toBe('working');
      expect(stored.lease?.owner).toBe('other');
      expect(decodeBody(stored).steps).toBeUndefined();
      expect(decodeBody(stored).result).toBeUndefined();
      expect(after).toBe(0);
      expect(effects).toEqual([stepKey(task.id, 'charge')]);
    });

    it.each([
      [
        'a name reached twice in one run',
        async (e: ToolElicitation) => (await e.step('a', () => 1)) + (await e.step('a', () => 2)),
        'elicitation.step("a") was reached twice in one run',
      ],
      [
        'a result over limits.maxStepResultBytes',
        (e: ToolElicitation) => e.step('big', () => 'x'.repeat(600)),
        'limits.maxStepResultBytes (512)',
      ],
      ['a result JSON cannot carry', (e: ToolElicitation) => e.step('n', () => BigInt(1)), 'returned a value JSON cannot carry'],
      ['an empty name', (e: ToolElicitation) => e.step('', () => 1), 'needs a name of 1 to 200 characters'],
    ] as const)('fails the tool with ElicitationStepError for %s, naming it', async (_name, body, message) => {
      const { runner, view } = setUp({ bad: (_args, elicitation: ToolElicitation) => body(elicitation) });
      const { task } = await runner.start('bad', {}, 'u1', ['form']);
      await settle();
      expect(await view(task.id)).toMatchObject({
        status: 'completed',
        result: { isError: true, content: [{ text: expect.stringContaining(message) }] },
      });
    });

    it('takes the steps a call ran before continueAsTask: the task does not run them again', async () => {
      let calls = 0;
      const { runner, view } = setUp({
        carried: async (_args, elicitation: ToolElicitation) => elicitation.step('open-ticket', () => (calls++, 'T-new')),
      });
      const { task } = await runner.start('carried', {}, 'u1', ['form'], [], { 'open-ticket': JSON.stringify({ v: 'T-9' }) });
      await settle();
      expect(await view(task.id)).toMatchObject({ status: 'completed', result: { content: [{ text: 'T-9' }] } });
      expect(calls).toBe(0);
    });
  });
});
