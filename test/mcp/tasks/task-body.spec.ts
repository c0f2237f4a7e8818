/**
 * A task's body as stores keep it (`encodeBody`, `decodeBody`): what a re-run and `tasks/get` need, not an open
 * question's request envelope nor empty answers; bodies written before (with `request`) read the same.
 */
import { describe, expect, it } from '@jest/globals';
import { decodeBody, encodeBody, outstandingRequests, type TaskBody } from '../../../src/mcp/tasks/task-body.js';
import type { StoredTask } from '../../../src/stores/task-store.js';

const params = {
  mode: 'form',
  message: 'Version?',
  requestedSchema: { type: 'object', properties: { version: { type: 'string' } }, required: ['version'] },
};
const waiting: TaskBody = {
  tool: 'release',
  args: { app: 'shop' },
  modes: ['form'],
  pollIntervalMs: 2000,
  answers: {},
  open: { '0.1': { index: 0, question: 'digest-0', request: { method: 'elicitation/create', params } } },
  nextKey: 2,
  fence: 1,
};
const stored = (body: string) => ({ body }) as StoredTask;

describe('task bodies', () => {
  it('keeps an open question by its params and no empty answers, and reads it back whole', () => {
    const json = encodeBody(waiting);
    expect(JSON.parse(json)).toEqual({
      tool: 'release',
      args: { app: 'shop' },
      modes: ['form'],
      pollIntervalMs: 2000,
      nextKey: 2,
      fence: 1,
      open: { '0.1': { index: 0, question: 'digest-0', ask: params } },
    });
    expect(json).not.toContain('elicitation/create');
    expect(decodeBody(stored(json))).toEqual(waiting);
    expect(outstandingRequests(decodeBody(stored(json)))).toEqual({ '0.1': { method: 'elicitation/create', params } });
  });

  it('keeps answers and answered requests as they are, and reads a body written before (with request) the same', () => {
    const answered: TaskBody = {
      ...waiting,
      answers: { 0: { question: 'digest-0', response: { action: 'accept', content: { version: '1.2.3' } } } },
      open: { '1.2': { index: 1, question: 'digest-1', elicitationId: 'e-1', response: { action: 'accept' } } },
    };
    expect(decodeBody(stored(encodeBody(answered)))).toEqual(answered);
    expect(decodeBody(stored(JSON.stringify(waiting)))).toEqual(waiting);
  });
});
