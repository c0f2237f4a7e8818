/**
 * What the lifecycle opens of a kept answer. An `oauth` grant holds a refresh token only the token vault may see:
 * the vault hands the lifecycle its keeper at start-up, and without it the lifecycle refuses to open such an
 * answer rather than show a tool the whole grant.
 */
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import type { TestingModule } from '@nestjs/testing';
import { ElicitationAnswers } from '../../src/lifecycle/elicitation-answers.js';
import { AnswerBox } from '../../src/security/answer-box.js';
import { MemoryElicitationStore } from '../../src/stores/memory.store.js';
import { pendingRecord } from '../../src/testing/index.js';
import { compileElicitation } from '../support/testing-module.js';

describe('ElicitationAnswers', () => {
  let ref: TestingModule;
  let box: AnswerBox;

  beforeEach(async () => {
    ref = await compileElicitation();
    box = ref.get(AnswerBox);
  });
  afterEach(async () => {
    await ref.close();
  });

  const grant = { $json: JSON.stringify({ accessToken: 'at-1', refreshToken: 'rt-1' }) };

  it('refuses to open an oauth answer without the vault that keeps it (fails closed)', () => {
    const answers = new ElicitationAnswers(box, new MemoryElicitationStore());
    const record = pendingRecord({ kind: 'oauth', type: 'oauth:github', status: 'completed', data: grant });
    expect(() => answers.reveal(record)).toThrow("answers of kind 'oauth' are opened only by their feature");
  });

  it('opens other kinds as they were kept', () => {
    const answers = new ElicitationAnswers(box, new MemoryElicitationStore());
    const record = pendingRecord({ status: 'completed', data: answers.keep('x', JSON.stringify({ apiKey: 'k' })) });
    expect(answers.reveal(record)).toEqual({ apiKey: 'k' });
  });

  it('in the module, the vault keeps oauth answers: a tool never sees the refresh token', () => {
    const answers = ref.get(ElicitationAnswers);
    expect(answers.keeperOf('oauth')).toBeDefined();
    const record = pendingRecord({ kind: 'oauth', type: 'oauth:github', status: 'completed', data: grant });
    expect(JSON.stringify(answers.reveal(record))).not.toContain('rt-1');
  });
});
