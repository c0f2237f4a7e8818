/**
 * The HTTP exceptions of the pages and the text their pages show: each exception's status and English message (what
 * the status route's JSON and the logs read), its page text picked from the page's catalog, kept off the exception's
 * enumerable properties; `pageError`, `withPageText`, `withPageHeading` and their readers.
 */
import { describe, expect, it } from '@jest/globals';
import { BadRequestException, ConflictException, ForbiddenException, GoneException, HttpStatus, NotFoundException } from '@nestjs/common';
import type { ElicitationStatus } from '../../../src/core/elicitation.types.js';
import { ElicitationCsrfException } from '../../../src/http/exceptions/elicitation-csrf.exception.js';
import { ElicitationExpiredException } from '../../../src/http/exceptions/elicitation-expired.exception.js';
import { ElicitationFinishedException } from '../../../src/http/exceptions/elicitation-finished.exception.js';
import { ElicitationNotFoundException } from '../../../src/http/exceptions/elicitation-not-found.exception.js';
import { ElicitationThrottledException } from '../../../src/http/exceptions/elicitation-throttled.exception.js';
import { pageError, pageHeadingOf, pageTextOf, withPageHeading, withPageText } from '../../../src/http/exceptions/page-text.js';
import { AR_MESSAGES } from '../../../src/messages/catalogs/ar.js';
import { DE_MESSAGES } from '../../../src/messages/catalogs/de.js';
import { PAGE_MESSAGES } from '../../../src/messages/default-messages.js';
import type { PageMessages } from '../../../src/messages/page-messages.js';

type Case = [string, () => Error & { getStatus(): number }, unknown, number, (m: PageMessages) => string];

const CASES: Case[] = [
  [
    'ElicitationNotFoundException',
    () => new ElicitationNotFoundException(),
    NotFoundException,
    HttpStatus.NOT_FOUND,
    (m) => m.errors.notFound,
  ],
  ['ElicitationExpiredException', () => new ElicitationExpiredException(), GoneException, HttpStatus.GONE, (m) => m.errors.expired],
  ['ElicitationCsrfException', () => new ElicitationCsrfException(), ForbiddenException, HttpStatus.FORBIDDEN, (m) => m.errors.forgedPost],
  [
    'ElicitationFinishedException',
    () => new ElicitationFinishedException('cancelled'),
    ConflictException,
    HttpStatus.CONFLICT,
    (m) => m.errors.finished('cancelled'),
  ],
  [
    'ElicitationThrottledException',
    () => new ElicitationThrottledException(42),
    Error,
    HttpStatus.TOO_MANY_REQUESTS,
    (m) => m.errors.throttled(42),
  ],
];

describe('the page exceptions', () => {
  it.each(CASES)('%s: its status, the English message, the page text in the page language', (_name, make, base, status, text) => {
    const exception = make();
    expect(exception).toBeInstanceOf(base);
    expect(exception.getStatus()).toBe(status);
    expect(exception.message).toBe(text(PAGE_MESSAGES));
    expect(pageTextOf(exception)?.(DE_MESSAGES)).toBe(text(DE_MESSAGES));
    expect(pageTextOf(exception)?.(AR_MESSAGES)).toBe(text(AR_MESSAGES));
    expect(text(DE_MESSAGES)).not.toBe(text(PAGE_MESSAGES));
  });

  it.each(CASES)('%s: the page text is no enumerable property (a copy or the JSON of it carries none)', (_name, make) => {
    const exception = make();
    expect(pageTextOf({ ...exception })).toBeUndefined();
    expect(Object.keys(exception)).not.toContain('pageText');
    expect(JSON.stringify(exception)).not.toContain('function');
  });

  it.each<[ElicitationStatus, string]>([
    ['completed', 'answered'],
    ['declined', 'declined'],
    ['cancelled', 'cancelled'],
    ['expired', 'no longer open'],
  ])('ElicitationFinishedException(%s) keeps the status and names it, never the data', (status, said) => {
    const exception = new ElicitationFinishedException(status);
    expect(exception.recordedStatus).toBe(status);
    expect(exception.message).toContain(said);
  });

  it('ElicitationThrottledException keeps the seconds to wait', () => {
    expect(new ElicitationThrottledException(9).retryAfterSeconds).toBe(9);
    expect(new ElicitationThrottledException(9).message).toBe(PAGE_MESSAGES.errors.throttled(9));
  });
});

describe('page-text', () => {
  it('pageError: a new exception with the English text as its message and the text picked per page', () => {
    const exception = pageError(BadRequestException, (m) => m.errors.unreadable);
    expect(exception).toBeInstanceOf(BadRequestException);
    expect(exception.message).toBe(PAGE_MESSAGES.errors.unreadable);
    expect(exception.getResponse()).toMatchObject({ statusCode: 400, message: PAGE_MESSAGES.errors.unreadable });
    expect(pageTextOf(exception)?.(DE_MESSAGES)).toBe(DE_MESSAGES.errors.unreadable);
  });

  it('withPageText and withPageHeading give an exception its text and heading, and return it', () => {
    const exception = new NotFoundException('x');
    expect(
      withPageHeading(
        withPageText(exception, (m) => m.errors.noSuchPage),
        (m) => m.headings.noMoreTime,
      ),
    ).toBe(exception);
    expect(pageTextOf(exception)?.(DE_MESSAGES)).toBe(DE_MESSAGES.errors.noSuchPage);
    expect(pageHeadingOf(exception)?.(DE_MESSAGES)).toBe(DE_MESSAGES.headings.noMoreTime);
  });

  it('nothing for an exception without them, or for what is not an object', () => {
    for (const value of [new Error('x'), new ElicitationNotFoundException(), undefined, null, 'text', 42]) {
      expect(pageHeadingOf(value)).toBeUndefined();
    }
    for (const value of [new Error('x'), undefined, null, 'text', 42]) expect(pageTextOf(value)).toBeUndefined();
  });
});
