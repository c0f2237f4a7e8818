/**
 * `ElicitationStatusFilter`: every failure on the status route as JSON with the route's headers: a Nest exception's
 * own body (the module's never carry request input), anything else a logged plain 500 that carries nothing of the
 * error. Read off a real HTTP response, from Nest's ArgumentsHost.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { HttpException, NotFoundException } from '@nestjs/common';
import type { TestingModule } from '@nestjs/testing';
import { ElicitationStoreUnavailableError } from '../../src/errors/elicitation-store-unavailable.error.js';
import { ElicitationStatusFilter } from '../../src/http/elicitation-status.filter.js';
import { ElicitationNotFoundException } from '../../src/http/exceptions/elicitation-not-found.exception.js';
import { ElicitationThrottledException } from '../../src/http/exceptions/elicitation-throttled.exception.js';
import { PAGE_MESSAGES } from '../../src/messages/default-messages.js';
import { compileElicitation } from '../support/testing-module.js';
import { captureLogs, exchange } from './http-exchange.support.js';

const SECRET = 'sk-live-PLANTED-4567';

describe('ElicitationStatusFilter', () => {
  let moduleRef: TestingModule;
  let filter: ElicitationStatusFilter;
  let logs: ReturnType<typeof captureLogs>;

  beforeAll(async () => {
    moduleRef = await compileElicitation();
    filter = moduleRef.get(ElicitationStatusFilter);
  });
  afterAll(() => moduleRef.close());
  beforeEach(() => {
    logs = captureLogs();
  });
  afterEach(() => logs.restore());

  const caught = (exception: unknown) =>
    exchange({ path: '/elicit/x/status', headers: { 'accept-language': 'de' } }, (context) => filter.catch(exception, context));

  it("a module exception: its status and Nest's body, in English whatever the browser asks", async () => {
    const answer = await caught(new ElicitationNotFoundException());
    expect(answer.status).toBe(404);
    expect(JSON.parse(answer.body)).toEqual({ statusCode: 404, message: PAGE_MESSAGES.errors.notFound, error: 'Not Found' });
    const throttled = await caught(new ElicitationThrottledException(12));
    expect(throttled.status).toBe(429);
    expect(JSON.parse(throttled.body)).toEqual({ statusCode: 429, message: PAGE_MESSAGES.errors.throttled(12) });
  });

  it('an HttpException made from a string or an object: the same shape', async () => {
    expect(JSON.parse((await caught(new HttpException('Slow down', 429))).body)).toEqual({ statusCode: 429, message: 'Slow down' });
    expect(JSON.parse((await caught(new NotFoundException({ statusCode: 404, message: 'gone' }))).body)).toEqual({
      statusCode: 404,
      message: 'gone',
    });
  });

  it('the headers of an answer without a page: JSON, a CSP that allows nothing, no-store, no X-Powered-By', async () => {
    const answer = await caught(new ElicitationNotFoundException());
    expect(answer.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(answer.headers.get('content-security-policy')).toBe("default-src 'none';frame-ancestors 'none';base-uri 'none'");
    expect(answer.headers.get('cache-control')).toBe('no-store');
    expect(answer.headers.get('x-content-type-options')).toBe('nosniff');
    expect(answer.headers.get('x-powered-by')).toBeNull();
  });

  it('anything else: a plain 500, logged, nothing of the error in the body', async () => {
    for (const exception of [new Error(`db ${SECRET}`), new ElicitationStoreUnavailableError('get', new Error(SECRET)), SECRET]) {
      const answer = await caught(exception);
      expect(answer.status).toBe(500);
      expect(JSON.parse(answer.body)).toEqual({ statusCode: 500, message: PAGE_MESSAGES.errors.unexpected });
      expect(answer.body).not.toContain(SECRET);
    }
    expect(logs.error).toHaveLength(3);
  });
});
