/**
 * `ElicitationPageFilter`: every failure on a page route as a readable page in the request's language, with the
 * status and heading it stands for and the page's headers; anything unexpected logged and shown as a plain 500 that
 * never carries the error's text. Each answer is the filter's own, on a real HTTP response from Nest's ArgumentsHost.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { BadRequestException, ForbiddenException, HttpException, NotFoundException } from '@nestjs/common';
import { ExecutionContextHost } from '@nestjs/core/helpers/execution-context-host.js';
import type { TestingModule } from '@nestjs/testing';
import { ElicitationInputError } from '../../src/errors/elicitation-input.error.js';
import { ElicitationKeyError } from '../../src/errors/elicitation-key.error.js';
import { ElicitationStoreUnavailableError } from '../../src/errors/elicitation-store-unavailable.error.js';
import { ElicitationPageFilter } from '../../src/http/elicitation-page.filter.js';
import { ElicitationCsrfException } from '../../src/http/exceptions/elicitation-csrf.exception.js';
import { ElicitationExpiredException } from '../../src/http/exceptions/elicitation-expired.exception.js';
import { ElicitationFinishedException } from '../../src/http/exceptions/elicitation-finished.exception.js';
import { ElicitationNotFoundException } from '../../src/http/exceptions/elicitation-not-found.exception.js';
import { ElicitationThrottledException } from '../../src/http/exceptions/elicitation-throttled.exception.js';
import { pageError, withPageHeading } from '../../src/http/exceptions/page-text.js';
import { DE_MESSAGES } from '../../src/messages/catalogs/de.js';
import { PAGE_MESSAGES } from '../../src/messages/default-messages.js';
import type { PageMessages } from '../../src/messages/page-messages.js';
import { assetTag } from '../support/page-assets.js';
import { compileElicitation } from '../support/testing-module.js';
import { captureLogs, exchange, type Exchanged } from './http-exchange.support.js';

const { errors, headings } = PAGE_MESSAGES;
const SECRET = 'sk-live-PLANTED-0123';

/** `text` as Handlebars prints it. */
const escaped = (text: string): string =>
  text.replace(
    /[&<>"'`=]/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#x27;', '`': '&#x60;', '=': '&#x3D;' })[c]!,
  );

describe('ElicitationPageFilter', () => {
  let moduleRef: TestingModule;
  let filter: ElicitationPageFilter;
  let logs: ReturnType<typeof captureLogs>;

  beforeAll(async () => {
    moduleRef = await compileElicitation();
    filter = moduleRef.get(ElicitationPageFilter);
  });
  afterAll(() => moduleRef.close());
  beforeEach(() => {
    logs = captureLogs();
  });
  afterEach(() => logs.restore());

  const caught = (exception: unknown, headers: Record<string, string> = {}): Promise<Exchanged<void>> =>
    exchange({ path: '/elicit/x/api-key', headers }, (context) => filter.catch(exception, context));

  /** The page's heading (its h1) and text, escaped as the templates print them. */
  function expectPage(
    answer: Exchanged<void>,
    status: number,
    heading: string | undefined,
    text: string,
    catalog: PageMessages = PAGE_MESSAGES,
  ): void {
    expect(answer.status).toBe(status);
    expect(answer.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(heading).toBeDefined();
    expect(answer.body).toMatch(new RegExp(`<h1[^>]*>${escaped(heading ?? '').replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}</h1>`));
    expect(answer.body).toContain(escaped(text));
    expect(answer.body).toContain(catalog.errors.statusLine(status));
  }

  it.each([
    ['not found', new ElicitationNotFoundException(), 404, headings.byStatus[404], errors.notFound],
    ['expired', new ElicitationExpiredException(), 410, headings.byStatus[410], errors.expired],
    ['finished', new ElicitationFinishedException('completed'), 409, headings.finished('completed'), errors.finished('completed')],
    ['a forged post', new ElicitationCsrfException(), 403, headings.forgedPost, errors.forgedPost],
    ['another account', pageError(ForbiddenException, (m) => m.errors.otherAccount), 403, headings.byStatus[403], errors.otherAccount],
    ['throttled', new ElicitationThrottledException(7), 429, headings.byStatus[429], errors.throttled(7)],
    [
      'an answer too large',
      new ElicitationInputError('data', 'is larger than limits.maxResultBytes'),
      413,
      headings.byStatus[413],
      errors.answerTooLarge,
    ],
    [
      'a store outage',
      new ElicitationStoreUnavailableError('get', new Error('connect ECONNREFUSED 10.0.0.5:6379')),
      503,
      headings.byStatus[503],
      errors.unavailable,
    ],
  ])('%s: its status, heading and text', async (_label, exception, status, heading, text) => {
    expectPage(await caught(exception), status, heading, text);
  });

  it('speaks the request language: heading and text from its catalog', async () => {
    const answer = await caught(new ElicitationFinishedException('declined'), { 'accept-language': 'de' });
    expectPage(answer, 409, DE_MESSAGES.headings.finished('declined'), DE_MESSAGES.errors.finished('declined'), DE_MESSAGES);
    expect(answer.body).toContain('<html lang="de"');
    const csrf = await caught(new ElicitationCsrfException(), { 'accept-language': 'de' });
    expectPage(csrf, 403, DE_MESSAGES.headings.forgedPost, DE_MESSAGES.errors.forgedPost, DE_MESSAGES);
  });

  it("the page's headers, its nonce on its style and script", async () => {
    const answer = await caught(new ElicitationNotFoundException());
    const nonce = /'nonce-([A-Za-z0-9_-]{22})'/.exec(answer.headers.get('content-security-policy') ?? '')?.[1];
    expect(answer.body.match(/<style\b[^>]*>/g)).toEqual([`<style nonce="${nonce}">`]);
    expect(answer.body.match(/<link\b[^>]*>/g)).toEqual([expect.stringMatching(assetTag('link', nonce!, 'css'))]);
    expect(answer.body.match(/<script\b[^>]*>/g)).toEqual([expect.stringMatching(assetTag('script', nonce!, 'js'))]);
    expect(answer.headers.get('cache-control')).toBe('no-store');
    expect(answer.headers.get('x-frame-options')).toBe('DENY');
    expect(answer.headers.get('x-powered-by')).toBeNull();
  });

  it('an error nobody expected: a plain 500 page, the error logged with its stack, nothing of it on the page', async () => {
    for (const exception of [new Error(`token ${SECRET} rejected`), `thrown string ${SECRET}`, { detail: SECRET }]) {
      const answer = await caught(exception);
      expectPage(answer, 500, headings.otherError, errors.unexpected);
      expect(answer.body).not.toContain(SECRET);
    }
    expect(logs.error.length).toBe(3);
  });

  it('an input error other than the answer size is a programming error: 500, logged', async () => {
    const answer = await caught(new ElicitationInputError('message', `must not contain ${SECRET}`));
    expectPage(answer, 500, headings.otherError, errors.unexpected);
    expect(answer.body).not.toContain(SECRET);
    expect(logs.error).toHaveLength(1);
  });

  it('a store outage: 503 and a warning, the cause (an address) only in the log', async () => {
    const answer = await caught(new ElicitationStoreUnavailableError('get', new Error('connect ECONNREFUSED 10.0.0.5:6379')));
    expect(answer.body).not.toContain('10.0.0.5');
    expect(logs.warn.join('\n')).toContain('ECONNREFUSED 10.0.0.5:6379');
    expect(logs.error).toEqual([]);
  });

  it('a key mismatch: a readable 503; each key id a warning once, then a debug line (a browser makes key ids up)', async () => {
    const keyId = Math.floor(Math.random() * 0xffffffff)
      .toString(16)
      .padStart(8, '0');
    const first = await caught(new ElicitationKeyError(keyId, ['aaaaaaaa'], 'a CSRF token signed'));
    expectPage(first, 503, headings.byStatus[503], errors.keyMismatch);
    expect(first.body).not.toContain(keyId);
    await caught(new ElicitationKeyError(keyId, ['aaaaaaaa'], 'a CSRF token signed'));
    expect(logs.warn.filter((line) => line.includes(keyId))).toHaveLength(1);
    expect(logs.debug.filter((line) => line.includes(keyId))).toHaveLength(1);
  });

  it("another HttpException: its status, its string message, else the status's heading with the plain text", async () => {
    expectPage(await caught(new BadRequestException('Choose a file first')), 400, headings.byStatus[400], 'Choose a file first');
    // A body without a string message (a list, as ValidationPipe makes it) shows none of it.
    const answer = await caught(new BadRequestException([`apiKey ${SECRET} must be an email`]));
    expectPage(answer, 400, headings.byStatus[400], errors.unexpected);
    expect(answer.body).not.toContain(SECRET);
    expectPage(await caught(new HttpException('I am a teapot', 418)), 418, headings.otherError, 'I am a teapot');
  });

  it('a heading an exception carries (withPageHeading) wins over the status heading', async () => {
    const exception = withPageHeading(new NotFoundException('x'), (m) => m.headings.noMoreTime);
    expectPage(await caught(exception), 404, headings.noMoreTime, 'x');
  });

  it('a request the framework could not read (no request at all): the default locale', async () => {
    const answer = await exchange({ headers: { 'accept-language': 'de' } }, (_context, _req, res) =>
      filter.catch(new ElicitationNotFoundException(), new ExecutionContextHost([undefined, res])),
    );
    expectPage(answer, 404, headings.byStatus[404], errors.notFound);
  });
});
