import { describe, expect, it } from '@jest/globals';
import { MAX_API_KEY_LENGTH } from '../../src/options/elicitation.constants.js';
import { readApiKeySubmission, readConfirmSubmission } from '../../src/http/page-submissions.js';
import { PAGE_MESSAGES } from '../../src/messages/default-messages.js';

const { apiKey: keyMessages, confirm: confirmMessages } = PAGE_MESSAGES;

describe('readApiKeySubmission', () => {
  it('takes one non-empty key, trimmed, with action absent or submit', () => {
    expect(readApiKeySubmission({ apiKey: '  ghp_abc  ' }, PAGE_MESSAGES)).toEqual({ ok: true, value: { apiKey: 'ghp_abc' } });
    expect(readApiKeySubmission({ apiKey: 'k', action: 'submit' }, PAGE_MESSAGES)).toEqual({ ok: true, value: { apiKey: 'k' } });
    expect(readApiKeySubmission({ apiKey: 'k'.repeat(MAX_API_KEY_LENGTH) }, PAGE_MESSAGES)).toEqual({
      ok: true,
      value: { apiKey: 'k'.repeat(MAX_API_KEY_LENGTH) },
    });
  });

  it.each([
    ['no body', undefined, keyMessages.enterKey],
    ['no key', {}, keyMessages.enterKey],
    ['an empty key', { apiKey: '' }, keyMessages.enterKey],
    ['a key of spaces only', { apiKey: ' \t ' }, keyMessages.enterKey],
    ['a repeated key (an array)', { apiKey: ['a', 'b'] }, keyMessages.enterKey],
    ['a key too long', { apiKey: 'k'.repeat(MAX_API_KEY_LENGTH + 1) }, keyMessages.tooLong(MAX_API_KEY_LENGTH)],
    ['an unknown action (before the key is looked at)', { action: 'delete', apiKey: '' }, keyMessages.unknownAction],
    ['a repeated action', { action: ['submit', 'cancel'], apiKey: 'k' }, keyMessages.unknownAction],
  ])('refuses %s with the page message', (_label, body, message) => {
    expect(readApiKeySubmission(body as Record<string, unknown> | undefined, PAGE_MESSAGES)).toEqual({ ok: false, message });
  });
});

describe('readConfirmSubmission', () => {
  it('takes confirm or cancel', () => {
    expect(readConfirmSubmission({ action: 'confirm' }, PAGE_MESSAGES)).toEqual({ ok: true, value: { action: 'confirm' } });
    expect(readConfirmSubmission({ action: 'cancel' }, PAGE_MESSAGES)).toEqual({ ok: true, value: { action: 'cancel' } });
  });

  it.each([[undefined], [{}], [{ action: 'submit' }], [{ action: ['confirm'] }]])('refuses %j', (body) => {
    expect(readConfirmSubmission(body, PAGE_MESSAGES)).toEqual({ ok: false, message: confirmMessages.chooseAction });
  });
});
