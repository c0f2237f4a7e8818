/**
 * Bounded fuzzing of every route of the module over real HTTP (fast-check, fixed seed): arbitrary ids
 * (existing, random UUIDs, arbitrary strings, URL-encoded or raw), arbitrary form/JSON/other bodies,
 * content types and Origin / Cookie / Sec-Fetch-Site / user headers.
 *
 * Properties: never a 5xx, the app keeps answering, every response is HTML or JSON with the expected
 * content type (and HTML pages carry their security headers), a redirect only ever goes to the external
 * target for its own user, no page shows another user's data or the stored secret, a POST never gets past
 * the CSRF check (so it never reads the store), and no stored record changes.
 */
import http, { type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import type { INestApplication } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import fc from 'fast-check';
import { ElicitationModule } from '../../src/module/elicitation.module.js';
import { ElicitationService } from '../../src/lifecycle/elicitation.service.js';
import { ElicitationStore } from '../../src/stores/elicitation-store.js';
import { csrfFor } from '../support/page-form.js';

const SEED = 20_260_522;
/** A property's time limit: its fixed number of runs takes about 4 s alone, and has taken over 30 s beside CI's other work. */
const FUZZ_TIMEOUT_MS = 120_000;
const BASE_URL = 'http://127.0.0.1:3000';
const HTML = 'text/html; charset=utf-8';
const JSON_TYPE = 'application/json; charset=utf-8';
const FUZZ_USER = 'fuzz';
const OTHER_USER = 'alice';
const SECRET = 'sk-FUZZ-PLANTED-7f3c1a9e5b';
const TARGET = 'https://auth.example.com/oauth/authorize?client_id=fuzz&state=s1';

type Method = 'GET' | 'POST';
interface Endpoint {
  method: Method;
  page: 'status' | 'api-key' | 'confirm' | 'external';
}
const ENDPOINTS: Endpoint[] = [
  { method: 'GET', page: 'status' },
  { method: 'GET', page: 'api-key' },
  { method: 'POST', page: 'api-key' },
  { method: 'GET', page: 'confirm' },
  { method: 'POST', page: 'confirm' },
  { method: 'GET', page: 'external' },
];

interface FuzzRequest {
  endpoint: Endpoint;
  id: string;
  query: string;
  headers: Record<string, string>;
  body?: string;
  /** The generated body, also for GETs (a coherent request may turn a GET into a POST). */
  rawBody?: string;
  chunked: boolean;
}

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
}

/** One request through node:http, so that nothing (content type, length) is added behind our back. */
function send(
  port: number,
  method: Method,
  path: string,
  headers: Record<string, string>,
  body?: string,
  chunked = false,
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const all = body !== undefined && !chunked ? { ...headers, 'Content-Length': String(Buffer.byteLength(body)) } : headers;
    const req = http.request({ host: '127.0.0.1', port, method, path, headers: all, agent: false }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, text }));
      res.on('error', reject);
    });
    req.setTimeout(10_000, () => req.destroy(new Error(`no answer within 10 s: ${method} ${path.slice(0, 200)}`)));
    req.on('error', reject);
    if (body !== undefined && chunked) {
      // Two writes: the body goes out chunked, without Content-Length.
      const half = Math.floor(body.length / 2);
      req.write(body.slice(0, half));
      req.end(body.slice(half));
    } else {
      req.end(body);
    }
  });
}

/** Replaces lone surrogates, which `encodeURIComponent` refuses. */
const wellFormed = (s: string) => s.replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, '\uFFFD');
const enc = (s: string) => encodeURIComponent(wellFormed(s));

/** Fails with the request in the message when `value` is not one of `allowed`. */
function expectOneOf(where: string, value: unknown, allowed: unknown[]): void {
  expect({ where, value, allowed: allowed.includes(value) }).toEqual({ where, value, allowed: true });
}

const headerUser = (req: { headers: Record<string, string | undefined> }) => req.headers['x-test-user'];

describe('fuzzing every route (fast-check, fixed seed)', () => {
  let app: INestApplication<Server>;
  let port: number;
  let service: ElicitationService;
  let storeGets: () => number;
  /** Records by role, with their owner, kind and message (each message is unique). */
  const records: Record<string, { id: string; userId: string; kind: string; message: string; pending: boolean }> = {};
  let cookieOfKeyPage: string;
  let tokenOfConfirmPage: string;
  let tokenOfOtherUsersPage: string;

  const snapshot = async () => {
    const out: unknown[] = [];
    for (const userId of [FUZZ_USER, OTHER_USER]) {
      for (const summary of await service.list({ userId })) {
        out.push({ ...summary, result: await service.getResult(summary.elicitationId) });
      }
    }
    return out;
  };

  beforeAll(async () => {
    const moduleRef = await Test.createTestingModule({
      imports: [
        ElicitationModule.forRoot({
          baseUrl: BASE_URL,
          resolvePageUser: headerUser,
          cleanupIntervalMs: 0,
          // On, so that the guard runs on every request, but far above what the fuzzer sends.
          throttle: { limit: 1_000_000, ttlMs: 60_000 },
          limits: { createPerMinute: 100_000, maxPendingPerUser: 100_000, maxPending: 1_000_000 },
          externalUrlPolicy: { resolveHost: () => Promise.resolve(['93.184.216.34']) },
        }),
      ],
    }).compile();
    app = moduleRef.createNestApplication<INestApplication<Server>>({ logger: false });
    await app.listen(0, '127.0.0.1');
    port = (app.getHttpServer().address() as AddressInfo).port;
    service = app.get(ElicitationService);
    const store = app.get(ElicitationStore);
    const spy = jest.spyOn(store, 'get');
    storeGets = () => spy.mock.calls.length;

    const create = async (role: string, kind: 'api-key' | 'confirm' | 'external', userId: string, extra: Record<string, unknown> = {}) => {
      const message = `message-of-${role}-${kind}`;
      const created = await service.createUrlElicitation({
        kind,
        userId,
        message,
        ...(kind === 'external' ? { url: TARGET } : {}),
        ...extra,
      });
      records[role] = { id: created.elicitationId, userId, kind, message, pending: true };
      return created.elicitationId;
    };
    await create('keyPending', 'api-key', FUZZ_USER);
    await create('confirmPending', 'confirm', FUZZ_USER, {
      metadata: { title: 'T<b>', warning: 'W"', confirmLabel: 'Yes', cancelLabel: 'No' },
    });
    await create('externalPending', 'external', FUZZ_USER);
    await service.complete(await create('keyCompleted', 'api-key', FUZZ_USER), { apiKey: SECRET });
    await service.decline(await create('confirmDeclined', 'confirm', FUZZ_USER));
    await service.cancel(await create('externalCancelled', 'external', FUZZ_USER));
    await create('keyExpired', 'api-key', FUZZ_USER, { ttlMs: 20 });
    await create('otherKeyPending', 'api-key', OTHER_USER);
    await create('otherConfirmPending', 'confirm', OTHER_USER);
    for (const role of ['keyCompleted', 'confirmDeclined', 'externalCancelled', 'keyExpired']) records[role].pending = false;
    await new Promise((r) => setTimeout(r, 40));
    expect(await service.getResult(records.keyExpired.id)).toEqual({ status: 'expired' });

    // Real CSRF material, but never a matching pair: a cookie of one page, tokens of others.
    const server = app.getHttpServer();
    cookieOfKeyPage = (await csrfFor(server, `/elicit/${records.keyPending.id}/api-key`, { 'x-test-user': FUZZ_USER })).cookie;
    tokenOfConfirmPage = (await csrfFor(server, `/elicit/${records.confirmPending.id}/confirm`, { 'x-test-user': FUZZ_USER })).token;
    tokenOfOtherUsersPage = (await csrfFor(server, `/elicit/${records.otherKeyPending.id}/api-key`, { 'x-test-user': OTHER_USER })).token;
  });

  afterAll(async () => {
    await app?.close();
  });

  const idArb = () => {
    const ids = Object.values(records).map((r) => r.id);
    return fc.oneof(
      { weight: 6, arbitrary: fc.constantFrom(...ids) },
      { weight: 1, arbitrary: fc.constantFrom(...ids).map((id) => id.toUpperCase()) },
      {
        weight: 1,
        arbitrary: fc
          .tuple(fc.constantFrom(...ids), fc.string({ unit: 'binary', minLength: 1, maxLength: 4 }))
          .map(([id, s]) => enc(id + s)),
      },
      { weight: 2, arbitrary: fc.uuid({ version: 4 }) },
      { weight: 1, arbitrary: fc.uuid() },
      { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 40 }).map(enc) },
      { weight: 1, arbitrary: fc.string({ unit: 'grapheme', maxLength: 12 }).map(enc) },
      // Raw, unencoded: may hold malformed percent escapes and dot segments.
      { weight: 1, arbitrary: fc.string({ unit: fc.constantFrom(...'abcdef0123456789-%.~_ABCXYZ'), maxLength: 40 }) },
      {
        weight: 1,
        arbitrary: fc.constantFrom('', '..', '%2e%2e', '..%2F..%2Fstatus', '%00', '%', '%zz', 'a'.repeat(8000), enc("' OR 1=1 --")),
      },
    );
  };

  const printable = (max: number) => fc.string({ maxLength: max });
  const tokens = () => [tokenOfConfirmPage, tokenOfOtherUsersPage];

  const fieldNameArb = () =>
    fc.oneof(
      { weight: 4, arbitrary: fc.constantFrom('_csrf', 'action', 'apiKey') },
      {
        weight: 1,
        arbitrary: fc.constantFrom(
          'apiKey[]',
          '_csrf[]',
          'action[]',
          'apiKey[toString]',
          'a[toString]',
          'action[valueOf]',
          '__proto__[x]',
          'constructor[prototype][x]',
          'toString',
          'a[b][c][d]',
        ),
      },
      { weight: 2, arbitrary: printable(12) },
      { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 12 }) },
    );
  const fieldValueArb = () =>
    fc.oneof(
      {
        weight: 4,
        arbitrary: fc.constantFrom('submit', 'cancel', 'confirm', '', ' ', SECRET, ...tokens(), ...Object.values(records).map((r) => r.id)),
      },
      { weight: 3, arbitrary: printable(40) },
      { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 40 }) },
      { weight: 1, arbitrary: fc.integer({ min: 4000, max: 30_000 }).map((n) => 'k'.repeat(n)) },
    );

  /** A body: the fields, serialised as a form, JSON (object, array or odd shapes) or garbage. */
  const bodyArb = () =>
    fc
      .tuple(
        fc.array(fc.tuple(fieldNameArb(), fieldValueArb()), { maxLength: 6 }),
        fc.constantFrom('form', 'form', 'form', 'json', 'json-array', 'json-odd', 'garbage'),
        fc.string({ unit: 'binary', maxLength: 120 }),
      )
      .map(([fields, shape, garbage]) => {
        switch (shape) {
          case 'form':
            return fields.map(([k, v]) => `${enc(k)}=${enc(v)}`).join('&');
          case 'json':
            return JSON.stringify(Object.fromEntries(fields));
          case 'json-array':
            return JSON.stringify(fields);
          case 'json-odd':
            return JSON.stringify(Object.fromEntries(fields.map(([k, v]) => [k, { toString: v, valueOf: [v] }])));
          default:
            return garbage;
        }
      });

  const contentTypeArb = fc.option(
    fc.oneof(
      {
        weight: 4,
        arbitrary: fc.constantFrom(
          'application/x-www-form-urlencoded',
          'application/x-www-form-urlencoded; charset=utf-8',
          'application/json',
          'application/json; charset=utf-8',
          'text/plain',
          'text/plain; charset=utf-8',
          'multipart/form-data; boundary=xyz',
          'application/xml',
          'application/x-www-form-urlencoded; charset=utf-7',
          'application/json; charset=latin1',
          'application/csp-report',
          '*/*',
        ),
      },
      { weight: 1, arbitrary: printable(30) },
    ),
    { nil: undefined },
  );

  const headersArb = () =>
    fc
      .record({
        origin: fc.option(
          fc.oneof(
            fc.constantFrom('null', BASE_URL, 'https://evil.example', `${BASE_URL}.evil.example`, 'http://127.0.0.1:3001', ''),
            printable(30),
          ),
          {
            nil: undefined,
          },
        ),
        cookie: fc.option(
          fc.oneof(
            fc.constantFrom(
              cookieOfKeyPage,
              'elicit_csrf=',
              'elicit_csrf=AAAAAAAAAAAAAAAAAAAAAA',
              `${cookieOfKeyPage}; ${cookieOfKeyPage}`,
              `session=1; ${cookieOfKeyPage}`,
            ),
            printable(60),
            printable(30).map((v) => `elicit_csrf=${v}`),
          ),
          { nil: undefined },
        ),
        site: fc.option(fc.oneof(fc.constantFrom('same-origin', 'same-site', 'cross-site', 'none'), printable(15)), { nil: undefined }),
        user: fc.option(
          fc.oneof(
            { weight: 4, arbitrary: fc.constantFrom(FUZZ_USER, OTHER_USER, 'mallory', '') },
            { weight: 1, arbitrary: printable(10) },
          ),
          {
            nil: undefined,
          },
        ),
        contentType: contentTypeArb,
      })
      .map(({ origin, cookie, site, user, contentType }) => {
        const headers: Record<string, string> = {};
        if (origin !== undefined) headers.Origin = origin;
        if (cookie !== undefined) headers.Cookie = cookie;
        if (site !== undefined) headers['Sec-Fetch-Site'] = site;
        if (user !== undefined) headers['x-test-user'] = user;
        if (contentType !== undefined) headers['Content-Type'] = contentType;
        return headers;
      });

  /** Random requests, plus "coherent" ones (an existing record, a route of its kind, its owner) that get deeper. */
  const requestArb = (): fc.Arbitrary<FuzzRequest> =>
    fc.oneof({ weight: 2, arbitrary: randomRequestArb() }, { weight: 1, arbitrary: coherentRequestArb() });

  const coherentRequestArb = (): fc.Arbitrary<FuzzRequest> =>
    fc.tuple(fc.constantFrom(...Object.values(records)), fc.boolean(), randomRequestArb()).map(([record, post, req]) => {
      const endpoint =
        ENDPOINTS.find((e) => e.page === record.kind && e.method === (post ? 'POST' : 'GET')) ??
        ENDPOINTS.find((e) => e.page === record.kind)!;
      return {
        ...req,
        endpoint,
        id: record.id,
        headers: { ...req.headers, 'x-test-user': record.userId },
        body: endpoint.method === 'POST' ? req.rawBody : undefined,
      };
    });

  const randomRequestArb = (): fc.Arbitrary<FuzzRequest> =>
    fc
      .record({
        endpoint: fc.constantFrom(...ENDPOINTS),
        id: idArb(),
        query: fc.option(
          fc.string({ unit: 'binary', maxLength: 30 }).map((q) => `?${enc(q)}=${enc(q)}`),
          { nil: '' },
        ),
        headers: headersArb(),
        body: bodyArb(),
        chunked: fc.boolean(),
      })
      .map(({ endpoint, id, query, headers, body, chunked }) => ({
        endpoint,
        id,
        query,
        headers,
        body: endpoint.method === 'POST' ? body : undefined,
        rawBody: body,
        chunked,
      }));

  const seenStatuses = new Map<number, number>();

  /** Sends one fuzz request and checks every property that holds for any request. */
  async function check(req: FuzzRequest, before: unknown): Promise<Answer> {
    const path = `/elicit/${req.id}/${req.endpoint.page}${req.query}`;
    const readsBefore = storeGets();
    const res = await send(port, req.endpoint.method, path, req.headers, req.body, req.chunked);
    const reads = storeGets() - readsBefore;
    seenStatuses.set(res.status, (seenStatuses.get(res.status) ?? 0) + 1);
    const where = `${req.endpoint.method} ${path.slice(0, 120)} -> ${res.status}`;

    // Never a server error; always HTML or JSON.
    expect({ where, serverError: res.status >= 500 }).toEqual({ where, serverError: false });
    expect([HTML, JSON_TYPE]).toContain(res.headers['content-type']);
    if (res.headers['content-type'] === JSON_TYPE) expect((): unknown => JSON.parse(res.text)).not.toThrow();

    if (req.endpoint.page === 'status') {
      // The status route: JSON only, never any submitted data.
      expect(res.headers['content-type']).toBe(JSON_TYPE);
      if (res.status === 200)
        expect(Object.keys(JSON.parse(res.text) as Record<string, unknown>).sort()).toEqual([
          'completed',
          'createdAt',
          'elicitationId',
          'expiresAt',
          'status',
        ]);
    } else if (res.headers['content-type'] === HTML) {
      // A page of the module: its security headers.
      expect(res.headers['content-security-policy']).toMatch(
        /^default-src 'none';style-src 'nonce-[A-Za-z0-9_-]+';.*frame-ancestors 'none'/,
      );
      expect(res.headers['x-frame-options']).toBe('DENY');
      expect(res.headers['x-content-type-options']).toBe('nosniff');
      expect(res.headers['cache-control']).toBe('no-store');
    } else {
      // JSON on a page route only from the framework, before the route: no route, undecodable path, body parser.
      expectOneOf(where, res.status, [400, 404, 413, 415]);
    }

    // The stored secret and the markup of payloads never come back.
    expect(res.text).not.toContain(SECRET);
    expect(JSON.stringify(res.headers)).not.toContain(SECRET);
    // The page's own script carries the nonce; any other would be markup from the input.
    expect(res.text.replace(/<script nonce="[A-Za-z0-9_-]+" src="[^"]+" defer><\/script>/, '')).not.toMatch(/<script/i);

    const user = req.headers['x-test-user'];
    const record = Object.values(records).find((r) => r.id === req.id);
    // A redirect: only the external page of the pending external elicitation, for its own user, to its target.
    if (res.headers.location !== undefined || res.status === 303) {
      expect({ where, location: res.headers.location }).toEqual({ where, location: TARGET });
      expect(req.endpoint).toEqual({ method: 'GET', page: 'external' });
      expect(req.id).toBe(records.externalPending.id);
      expect(user?.trim()).toBe(FUZZ_USER);
    }
    // A page showing a record (its message) only for its owner, while pending, on its own kind of page.
    for (const r of Object.values(records)) {
      if (res.text.includes(r.message)) {
        expect({ where, owner: r.userId, kind: r.kind, pending: r.pending }).toEqual({
          where,
          owner: user?.trim(),
          kind: req.endpoint.page,
          pending: true,
        });
        expect(res.status).toBe(200);
      }
    }
    // A CSRF cookie only with a rendered form.
    if (res.headers['set-cookie'] !== undefined) {
      expect({ where, status: res.status, method: req.endpoint.method }).toEqual({ where, status: 200, method: 'GET' });
      expect(record?.pending).toBe(true);
    }
    // A post never gets past the CSRF check: never a success, a 409/410 or an identity answer, and no store read.
    if (req.endpoint.method === 'POST') {
      expectOneOf(where, res.status, [400, 403, 404, 413, 415]);
      expect({ where, reads }).toEqual({ where, reads: 0 });
    }
    // Nothing stored or changed (a fuzzer produces no valid CSRF pair).
    expect(await snapshot()).toEqual(before);
    return res;
  }

  /** The app still answers a plain status request. */
  async function alive(): Promise<void> {
    const res = await send(port, 'GET', `/elicit/${records.keyPending.id}/status`, {});
    expect(res.status).toBe(200);
    expect(JSON.parse(res.text)).toMatchObject({ status: 'pending' });
  }

  it(
    'any request to any route: no 5xx, HTML or JSON as expected, no redirect or data to the wrong user, nothing changed',
    async () => {
      const before = await snapshot();
      expect(before).toHaveLength(Object.keys(records).length);
      await fc.assert(
        fc.asyncProperty(requestArb(), async (req) => {
          await check(req, before);
          await alive();
        }),
        { seed: SEED, numRuns: 220 },
      );
      expect(await snapshot()).toEqual(before);
      // The fuzzer reached the interesting answers, not only 404s.
      for (const status of [200, 303, 400, 401, 403, 404, 409, 410]) {
        expect({ status, seen: (seenStatuses.get(status) ?? 0) > 0 }).toEqual({ status, seen: true });
      }
    },
    FUZZ_TIMEOUT_MS,
  );

  it(
    'near-valid posts (right user, same origin, fresh cookie, tampered token or fields): always refused, nothing changed',
    async () => {
      const before = await snapshot();
      const targets = [
        { role: 'keyPending', page: 'api-key' },
        { role: 'confirmPending', page: 'confirm' },
      ] as const;
      const tamperArb = fc.oneof(
        fc.constant((t: string) => t.slice(0, -1)),
        fc.constant((t: string) => `${t}A`),
        fc.constant((t: string) => t.toUpperCase()),
        fc.constant((t: string) => t.split('').reverse().join('')),
        fc.constant(() => tokenOfOtherUsersPage),
        fc.constant(() => tokenOfConfirmPage),
        fc.nat({ max: 42 }).map((i) => (t: string) => t.slice(0, i) + (t[i] === 'x' ? 'y' : 'x') + t.slice(i + 1)),
        printable(50).map((s) => () => s),
      );
      await fc.assert(
        fc.asyncProperty(
          fc.constantFrom(...targets),
          tamperArb,
          fc.array(fc.tuple(fieldNameArb(), fieldValueArb()), { maxLength: 4 }),
          fc.constantFrom('null', BASE_URL, undefined),
          fc.constantFrom('application/x-www-form-urlencoded', 'application/json'),
          async (target, tamper, fields, origin, contentType) => {
            const pagePath = `/elicit/${records[target.role].id}/${target.page}`;
            const pair = await csrfFor(app.getHttpServer(), pagePath, { 'x-test-user': FUZZ_USER });
            const token = tamper(pair.token);
            fc.pre(token !== pair.token);
            const form = [
              ...fields.filter(([k]) => k !== '_csrf'),
              ['_csrf', token] as [string, string],
              ['action', target.page === 'confirm' ? 'confirm' : 'submit'] as [string, string],
              ['apiKey', SECRET] as [string, string],
            ];
            const body =
              contentType === 'application/json'
                ? JSON.stringify(Object.fromEntries(form))
                : form.map(([k, v]) => `${enc(k)}=${enc(v)}`).join('&');
            const headers: Record<string, string> = { 'x-test-user': FUZZ_USER, Cookie: pair.cookie, 'Content-Type': contentType };
            if (origin) headers.Origin = origin;
            const readsBefore = storeGets();
            const res = await send(port, 'POST', pagePath, headers, body);
            seenStatuses.set(res.status, (seenStatuses.get(res.status) ?? 0) + 1);
            expectOneOf(`POST ${pagePath} token ${token}`, res.status, [403, 413]);
            expect(res.headers['content-type']).toBe(HTML);
            expect(res.text).not.toContain(SECRET);
            expect(storeGets() - readsBefore).toBe(0);
            expect(await snapshot()).toEqual(before);
          },
        ),
        { seed: SEED + 1, numRuns: 80 },
      );
      await alive();
    },
    FUZZ_TIMEOUT_MS,
  );
});
