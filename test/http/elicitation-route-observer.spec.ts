/**
 * `ElicitationRouteObserver` and its helpers: the refusal each exception stands for, the id checked once per request,
 * the audit record written when the answer is sent (`page.opened`, `page.refused`, or none), and `InRouteContext`
 * (the request behind what the handler does, only when something records it). Real Express requests through Nest's
 * ExecutionContext, with a handler that carries Nest's own route metadata, and the module's real audit log.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  BadRequestException,
  ForbiddenException,
  Get,
  NotFoundException,
  PayloadTooLargeException,
  ServiceUnavailableException,
  UnauthorizedException,
} from '@nestjs/common';
import type { TestingModule } from '@nestjs/testing';
import { ElicitationInputError } from '../../src/errors/elicitation-input.error.js';
import {
  ElicitationRouteObserver,
  InRouteContext,
  observePageOpened,
  observePageRecord,
  observeRefusal,
  refusalOf,
  routeElicitationId,
} from '../../src/http/elicitation-route-observer.js';
import { ElicitationCsrfException } from '../../src/http/exceptions/elicitation-csrf.exception.js';
import { ElicitationExpiredException } from '../../src/http/exceptions/elicitation-expired.exception.js';
import { ElicitationFinishedException } from '../../src/http/exceptions/elicitation-finished.exception.js';
import { ElicitationNotFoundException } from '../../src/http/exceptions/elicitation-not-found.exception.js';
import { ElicitationThrottledException } from '../../src/http/exceptions/elicitation-throttled.exception.js';
import { ElicitationRecords } from '../../src/lifecycle/elicitation-records.js';
import { ElicitationService } from '../../src/lifecycle/elicitation.service.js';
import { ElicitationAudit } from '../../src/observability/elicitation-audit.js';
import { ElicitationTelemetry } from '../../src/observability/elicitation-telemetry.js';
import { currentRequest, type ElicitationRequestInfo } from '../../src/observability/request-context.js';
import type { ElicitationAuditRecord } from '../../src/options/audit-record.js';
import { parseElicitationId } from '../../src/core/elicitation-id.js';
import { compileElicitation } from '../support/testing-module.js';
import { exchange } from './http-exchange.support.js';

const ID = '1b4e28ba-2fa1-41d2-883f-0016d3cca427';
const AGENT = 'Mozilla/5.0 (observer test)';

/** Route handlers as Nest declares them (the observer reads the page off the route's path). */
class Routes {
  @Get(':id/api-key')
  apiKey(this: void): void {}

  @Get(':id/status')
  status(this: void): void {}

  @Get(':id/oauth/callback')
  callback(this: void): void {}
}

describe('refusalOf', () => {
  it.each([
    ['throttled', new ElicitationThrottledException(3), 'throttled'],
    ['a forged post (a 403, told apart from identity)', new ElicitationCsrfException(), 'csrf'],
    ['sign in', new UnauthorizedException(), 'identity'],
    ['another account', new ForbiddenException(), 'identity'],
    ['expired', new ElicitationExpiredException(), 'expired'],
    ['finished', new ElicitationFinishedException('completed'), 'finished'],
    ['not found', new ElicitationNotFoundException(), 'not-found'],
    ['a body too large', new PayloadTooLargeException(), 'too-large'],
    ['an answer too large', new ElicitationInputError('data', 'is too large'), 'too-large'],
    ['another input error (a failure)', new ElicitationInputError('message', 'is empty'), undefined],
    ["Nest's own 404 (no such page)", new NotFoundException(), undefined],
    ['a bad request', new BadRequestException(), undefined],
    ['a 503', new ServiceUnavailableException(), undefined],
    ['an error', new Error('x'), undefined],
    ['nothing', undefined, undefined],
  ])('%s → %s', (_label, exception, reason) => {
    expect(refusalOf(exception)).toBe(reason);
  });
});

describe('routeElicitationId without the observer', () => {
  it('checks the id given (the observer did not see the request)', () => {
    const req = { headers: {} };
    expect(routeElicitationId(req, ID)).toBe(ID);
    expect(routeElicitationId(req, 'not-an-id')).toBeUndefined();
    expect(routeElicitationId(req, ID.toUpperCase())).toBeUndefined();
  });
});

describe('ElicitationRouteObserver with an audit log', () => {
  let moduleRef: TestingModule;
  let observer: ElicitationRouteObserver;
  const audited: ElicitationAuditRecord[] = [];

  beforeAll(async () => {
    moduleRef = await compileElicitation({ audit: (record) => void audited.push(record) });
    observer = new ElicitationRouteObserver(moduleRef.get(ElicitationTelemetry), moduleRef.get(ElicitationAudit));
  });
  afterAll(() => moduleRef.close());

  /** The page records written for requests from now on, once `count` arrived (the answer's close comes after the client read it). */
  async function pageRecords(since: number, count: number): Promise<ElicitationAuditRecord[]> {
    for (let i = 0; i < 100; i++) {
      const records = audited.slice(since).filter((r) => r.event.startsWith('page.'));
      if (records.length >= count) return records;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    return audited.slice(since).filter((r) => r.event.startsWith('page.'));
  }

  it('a page shown: page.opened with the record, the client address and agent, and the status', async () => {
    const service = moduleRef.get(ElicitationService);
    const { elicitationId } = await service.createUrlElicitation({ kind: 'api-key', message: 'Key', userId: 'alice' });
    const record = (await moduleRef.get(ElicitationRecords).get(parseElicitationId(elicitationId)!))!;
    const since = audited.length;
    await exchange(
      { path: `/elicit/${elicitationId}/api-key`, headers: { 'user-agent': AGENT } },
      (context, req, res) => {
        expect(observer.canActivate(context)).toBe(true);
        // What ElicitationPageAccess.open notes once its checks passed.
        observePageRecord(req, record);
        observePageOpened(req);
        res.status(200).send('page');
      },
      { route: '/elicit/:id/:page', controller: Routes, handler: Routes.prototype.apiKey },
    );
    const [opened, ...more] = await pageRecords(since, 1);
    expect(more).toEqual([]);
    expect(opened).toMatchObject({
      event: 'page.opened',
      outcome: 'success',
      elicitationId,
      kind: 'api-key',
      userId: 'alice',
      userAgent: AGENT,
      status: 200,
    });
    expect(opened.ip).toMatch(/127\.0\.0\.1$/);
    expect(opened).not.toHaveProperty('reason');
  });

  it('a refusal: page.refused with its reason and status; the id from the path, the kind from the page, no user', async () => {
    const since = audited.length;
    await exchange(
      { path: `/elicit/${ID}/api-key`, method: 'POST' },
      (context, req, res) => {
        observer.canActivate(context);
        observeRefusal(req, refusalOf(new ElicitationCsrfException()));
        res.status(403).send('forged');
      },
      { route: '/elicit/:id/:page', controller: Routes, handler: Routes.prototype.apiKey },
    );
    const [refused] = await pageRecords(since, 1);
    expect(refused).toMatchObject({
      event: 'page.refused',
      outcome: 'failure',
      elicitationId: ID,
      kind: 'api-key',
      reason: 'csrf',
      status: 403,
    });
    expect(refused).not.toHaveProperty('userId');
  });

  it('a malformed id is never recorded; the status route and the callback have no kind', async () => {
    const since = audited.length;
    const refuse = (handler: () => void) =>
      exchange(
        { path: '/elicit/<script>/x' },
        (context, req, res) => {
          observer.canActivate(context);
          observeRefusal(req, 'not-found');
          res.status(404).send('no');
        },
        { route: '/elicit/:id/:page', controller: Routes, handler },
      );
    await refuse(Routes.prototype.status);
    await refuse(Routes.prototype.callback);
    const records = await pageRecords(since, 2);
    expect(records.map((r) => [r.event, r.reason, r.elicitationId, r.kind])).toEqual([
      ['page.refused', 'not-found', undefined, undefined],
      ['page.refused', 'not-found', undefined, undefined],
    ]);
  });

  it('nothing recorded for an answer that neither showed a page nor refused (a post answered, a failure), nor an opened page that failed', async () => {
    const since = audited.length;
    const answer = (status: number, opened: boolean) =>
      exchange(
        { path: `/elicit/${ID}/api-key` },
        (context, req, res) => {
          observer.canActivate(context);
          if (opened) observePageOpened(req);
          res.status(status).send('x');
        },
        { route: '/elicit/:id/:page', controller: Routes, handler: Routes.prototype.apiKey },
      );
    await answer(200, false);
    await answer(500, false);
    await answer(500, true);
    // A request that is recorded, after them: when it arrives, the three before it wrote nothing.
    await exchange(
      { path: `/elicit/${ID}/api-key` },
      (context, req, res) => {
        observer.canActivate(context);
        observeRefusal(req, 'expired');
        res.status(410).send('gone');
      },
      { route: '/elicit/:id/:page', controller: Routes, handler: Routes.prototype.apiKey },
    );
    const records = await pageRecords(since, 1);
    expect(records.map((r) => [r.event, r.reason, r.status])).toEqual([['page.refused', 'expired', 410]]);
  });

  it('observes a request once: a second pass of the guard keeps the first observation (and writes one record)', async () => {
    const since = audited.length;
    await exchange(
      { path: `/elicit/${ID}/api-key` },
      (context, req, res) => {
        observer.canActivate(context);
        observeRefusal(req, 'identity');
        expect(observer.canActivate(context)).toBe(true);
        res.status(401).send('sign in');
      },
      { route: '/elicit/:id/:page', controller: Routes, handler: Routes.prototype.apiKey },
    );
    const records = await pageRecords(since, 1);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(audited.slice(since).filter((r) => r.event.startsWith('page.'))).toEqual(records);
    expect(records.map((r) => r.reason)).toEqual(['identity']);
  });

  it("the observation's id is the one routeElicitationId gives, whatever id is passed", async () => {
    const seen = await exchange(
      { path: `/elicit/${ID}/api-key` },
      (context, req) => {
        observer.canActivate(context);
        return [routeElicitationId(req, 'anything'), routeElicitationId(req, ID)];
      },
      { route: '/elicit/:id/:page', controller: Routes, handler: Routes.prototype.apiKey },
    );
    expect(seen.result).toEqual([ID, ID]);
  });

  it('InRouteContext: the handler runs with the request behind what it does (the audit log reads it)', async () => {
    class Handlers {
      @InRouteContext()
      handle(req: object): ElicitationRequestInfo | undefined {
        void req;
        return currentRequest();
      }
    }
    const seen = await exchange(
      { path: `/elicit/${ID}/api-key`, headers: { 'user-agent': AGENT } },
      (context, req) => {
        observer.canActivate(context);
        return new Handlers().handle(req);
      },
      { route: '/elicit/:id/:page', controller: Routes, handler: Routes.prototype.apiKey },
    );
    expect(seen.result).toMatchObject({ userAgent: AGENT, ip: expect.stringMatching(/127\.0\.0\.1$/) });
  });
});

describe('ElicitationRouteObserver without an audit log or traces', () => {
  it('InRouteContext calls the handler as it is: no request context, the same this and arguments', async () => {
    const moduleRef = await compileElicitation();
    try {
      const observer = new ElicitationRouteObserver(moduleRef.get(ElicitationTelemetry), moduleRef.get(ElicitationAudit));
      class Handlers {
        readonly name = 'handlers';
        @InRouteContext()
        handle(req: object, extra: string): [string, string, ElicitationRequestInfo | undefined] {
          void req;
          return [this.name, extra, currentRequest()];
        }
      }
      const seen = await exchange(
        { path: `/elicit/${ID}/api-key` },
        (context, req) => {
          observer.canActivate(context);
          return new Handlers().handle(req, 'extra');
        },
        { route: '/elicit/:id/:page', controller: Routes, handler: Routes.prototype.apiKey },
      );
      expect(seen.result).toEqual(['handlers', 'extra', undefined]);
    } finally {
      await moduleRef.close();
    }
  });
});
