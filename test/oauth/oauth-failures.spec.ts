/**
 * How a failed request to a provider is classified (unreachable: the grant is kept and the page answers 503;
 * refused: 502, the grant forgotten) and told (a code or a status, never a body or a token). The errors here have
 * the shapes `openid-client` 6 / `oauth4webapi` reject with; oauth-providers.spec.ts classifies the real ones of a
 * running provider.
 */
import { describe, expect, it } from '@jest/globals';
import { ClientError, ResponseBodyError, type JsonValue } from 'openid-client';
import { describeFailure, oauthErrorCode, providerUnreachable } from '../../src/oauth/oauth-failures.js';

const SECRET = 'SECRET-at-9f8e7d';

/** A ResponseBodyError as oauth4webapi builds it: the OAuth error body, the status, the response as its cause. */
function responseBodyError(status: number, body: { error: string; [key: string]: JsonValue | undefined }): ResponseBodyError {
  const response = new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
  return new ResponseBodyError('server responded with an error in the response body', { cause: body, response });
}

describe('providerUnreachable', () => {
  it.each<[string, unknown]>([
    ['a TypeError (fetch failed: no connection)', new TypeError('fetch failed', { cause: { code: 'ECONNREFUSED' } })],
    ['a TimeoutError', new DOMException('The operation was aborted due to timeout', 'TimeoutError')],
    ['an AbortError', new DOMException('This operation was aborted', 'AbortError')],
    ['a TimeoutError-named error', Object.assign(new Error('timed out'), { name: 'TimeoutError' })],
    ['status 503', { status: 503 }],
    ['status 500', { status: 500 }],
    ['an OAuth error body with status 503', { error: 'temporarily_unavailable', status: 503 }],
    ['a ResponseBodyError with status 502', responseBodyError(502, { error: 'server_error' })],
    ['cause.status 502 (a response openid-client could not read)', { name: 'ClientError', cause: { status: 502 } }],
    [
      'a ClientError caused by a 504 Response',
      new ClientError('unexpected HTTP response status code', { cause: new Response('gateway timeout', { status: 504 }) }),
    ],
  ])('true for %s', (_case, error) => {
    expect(providerUnreachable(error)).toBe(true);
  });

  it.each<[string, unknown]>([
    ['an invalid_grant body with status 400 (ResponseBodyError-like)', { error: 'invalid_grant', status: 400 }],
    ['a real ResponseBodyError invalid_grant 400', responseBodyError(400, { error: 'invalid_grant' })],
    ['invalid_client 401', { error: 'invalid_client', status: 401 }],
    ['status 499', { status: 499 }],
    ['cause.status 404', { cause: { status: 404 } }],
    ['a status as a string', { status: '503' }],
    ['a plain Error', new Error('id token signature')],
    ['a ClientError without a status', new ClientError('unexpected JWT claim value encountered')],
    ['null', null],
    ['undefined', undefined],
    ['a string', 'fetch failed'],
  ])('false for %s', (_case, error) => {
    expect(providerUnreachable(error)).toBe(false);
  });

  // openid-client 6 rethrows its timeout and abort DOMExceptions wrapped in a ClientError (code OAUTH_TIMEOUT /
  // OAUTH_ABORT, the DOMException as cause): a provider that times out did not refuse anything.
  it('true for openid-client’s wrapped timeout', () => {
    // As openid-client's errorHandler builds it (its constructor takes `code` in the options; not in its types).
    const wrapped = new ClientError('operation timed out', {
      cause: new DOMException('The operation was aborted due to timeout', 'TimeoutError'),
      code: 'OAUTH_TIMEOUT',
    } as ErrorOptions);
    expect(wrapped.code).toBe('OAUTH_TIMEOUT');
    expect(providerUnreachable(wrapped)).toBe(true);
  });
});

describe('oauthErrorCode', () => {
  it('is the provider’s OAuth error code, only when printable and short', () => {
    expect(oauthErrorCode({ error: 'invalid_grant', status: 400 })).toBe('invalid_grant');
    expect(oauthErrorCode(responseBodyError(400, { error: 'invalid_scope' }))).toBe('invalid_scope');
    expect(oauthErrorCode({ error: 'x'.repeat(64) })).toBe('x'.repeat(64));
    expect(oauthErrorCode({ error: 'x'.repeat(65) })).toBeUndefined();
    expect(oauthErrorCode({ error: `invalid_grant\n${SECRET}` })).toBeUndefined();
    expect(oauthErrorCode({ error: '' })).toBeUndefined();
    expect(oauthErrorCode({ error: 42 })).toBeUndefined();
    expect(oauthErrorCode({ error: { code: 'invalid_grant' } })).toBeUndefined();
    expect(oauthErrorCode(new Error('invalid_grant'))).toBeUndefined();
    expect(oauthErrorCode(null)).toBeUndefined();
    expect(oauthErrorCode(undefined)).toBeUndefined();
  });
});

describe('describeFailure', () => {
  it.each<[string, unknown, string]>([
    ['an OAuth error with a status', { error: 'invalid_grant', status: 400 }, 'invalid_grant, HTTP 400'],
    ['an OAuth error without a status', { error: 'access_denied' }, 'access_denied'],
    ['a real ResponseBodyError', responseBodyError(400, { error: 'invalid_grant' }), 'invalid_grant, HTTP 400'],
    ['a status alone', { status: 503 }, 'HTTP 503'],
    ['a connection failure', new TypeError('fetch failed', { cause: { code: 'ECONNREFUSED' } }), 'ECONNREFUSED'],
    ['a timeout', new DOMException('The operation was aborted due to timeout', 'TimeoutError'), 'TimeoutError'],
    ['an error by its name', new ClientError('unexpected JWT claim value encountered'), 'ClientError'],
    ['null', null, 'no answer'],
    ['undefined', undefined, 'no answer'],
    ['a string', 'boom', 'no answer'],
    ['an odd name', { name: 'Bad name!' }, 'no answer'],
  ])('tells %s', (_case, error, told) => {
    expect(describeFailure(error)).toBe(told);
  });

  it.each<[string, unknown]>([
    ['a token in the cause', Object.assign(new Error('token request failed'), { cause: { access_token: SECRET } })],
    ['a token in the cause, with an OAuth error', { error: 'invalid_grant', status: 400, cause: { refresh_token: SECRET } }],
    ['a token in the message', new Error(`refresh_token=${SECRET} was refused`)],
    ['a token in the description', { error: 'invalid_grant', error_description: `token ${SECRET} revoked`, status: 400 }],
    ['a token as the error code', { error: SECRET.replace(/-/g, ' ') + ' access_token'.repeat(6), status: 400 }],
    ['a token in the body of a ResponseBodyError', responseBodyError(400, { error: 'invalid_grant', access_token: SECRET })],
    [
      'a token in a 5xx response body',
      new ClientError('unexpected HTTP response status code', { cause: new Response(`{"access_token":"${SECRET}"}`, { status: 500 }) }),
    ],
    ['a token in the name', { name: SECRET }],
    ['a token as a thrown string', `access_token=${SECRET}`],
  ])('never repeats %s', (_case, error) => {
    const told = describeFailure(error);
    expect(told).not.toContain(SECRET);
    expect(told).not.toContain('SECRET');
    expect(told.length).toBeGreaterThan(0);
    expect(told.length).toBeLessThanOrEqual(80);
  });

  // A cause's `code` is told only when it has the shape of an error code (ECONNREFUSED, OAUTH_*): never a value.
  it('never repeats a token-like cause code', () => {
    expect(describeFailure({ cause: { code: `access_token=${SECRET}` } })).not.toContain(SECRET);
  });
});
