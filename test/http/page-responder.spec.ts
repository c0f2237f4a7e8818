/**
 * `PageResponder`: a page in the request's language with its headers and, for a pending request, the expiry line and
 * "Need more time?"; the done page of a transition (or the page of why it did not happen); a redirect. Records come
 * from a real `ElicitationService` over the memory store; the answers are read off real HTTP.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { TestingModule } from '@nestjs/testing';
import { parseElicitationId } from '../../src/core/elicitation-id.js';
import type { ElicitationRecord } from '../../src/core/elicitation.types.js';
import { ElicitationFinishedException } from '../../src/http/exceptions/elicitation-finished.exception.js';
import { PageResponder } from '../../src/http/page-responder.js';
import type { PageContexts } from '../../src/http/page-contexts.js';
import { ElicitationRecords } from '../../src/lifecycle/elicitation-records.js';
import { ElicitationService } from '../../src/lifecycle/elicitation.service.js';
import { DE_MESSAGES } from '../../src/messages/catalogs/de.js';
import { PAGE_MESSAGES } from '../../src/messages/default-messages.js';
import { compileElicitation } from '../support/testing-module.js';
import { exchange } from './http-exchange.support.js';

const apiKeyPage = (csrf: string, labels = PAGE_MESSAGES.labels): PageContexts['api-key'] => ({
  heading: PAGE_MESSAGES.headings.apiKey,
  message: 'Your GitHub key',
  maxLength: 4096,
  error: null,
  csrf,
  labels,
});

describe('PageResponder', () => {
  let moduleRef: TestingModule;
  let answers: PageResponder;
  let service: ElicitationService;
  let records: ElicitationRecords;

  beforeAll(async () => {
    moduleRef = await compileElicitation();
    answers = moduleRef.get(PageResponder);
    service = moduleRef.get(ElicitationService);
    records = moduleRef.get(ElicitationRecords);
  });
  afterAll(() => moduleRef.close());

  async function pending(ttlMs: number): Promise<ElicitationRecord> {
    const { elicitationId } = await service.createUrlElicitation({ kind: 'api-key', message: 'Your GitHub key', userId: 'alice', ttlMs });
    return (await records.get(parseElicitationId(elicitationId)!))!;
  }

  /** A page rendered for `record` and sent, as the browser receives it. */
  function served(record: ElicitationRecord | undefined, headers: Record<string, string> = {}, csrf = 'k.csrf-token', formTarget?: string) {
    return exchange({ headers }, (_context, req, res) => {
      const html = answers.page(req, res, 200, 'api-key', apiKeyPage(csrf), { record, formTarget });
      res.send(html);
    });
  }

  it('renders the page with its headers: the nonce of its CSP on its style and script, the request status', async () => {
    const record = await pending(600_000);
    const answer = await exchange({}, (_context, req, res) =>
      res.send(answers.page(req, res, 422, 'api-key', apiKeyPage('t'), { record })),
    );
    expect(answer.status).toBe(422);
    const nonce = /'nonce-([A-Za-z0-9_-]{22})'/.exec(answer.headers.get('content-security-policy') ?? '')?.[1];
    expect(nonce).toBeDefined();
    expect(answer.body).toContain(`<style nonce="${nonce}">`);
    expect(answer.body).toContain(`nonce="${nonce}"`);
    expect(answer.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(answer.headers.get('cache-control')).toBe('no-store');
  });

  it("speaks the request's language: lang and dir, and the expiry line in that language", async () => {
    const record = await pending(600_000);
    const german = await served(record, { 'accept-language': 'de-DE,de;q=0.9' });
    expect(german.body).toContain('<html lang="de" dir="ltr">');
    expect(german.body).toContain('in 10 Minuten');
    const arabic = await served(record, { 'accept-language': 'ar' });
    expect(arabic.body).toContain('<html lang="ar" dir="rtl">');
  });

  it.each([
    [2 * 3_600_000, 'in 2 hours'],
    [600_000, 'in 10 minutes'],
    [90_000, 'in 2 minutes'],
    [30_000, 'in 30 seconds'],
  ])('a request expiring in %i ms: "%s", with the UTC date and time and the ISO instant', async (ttlMs, relative) => {
    const record = await pending(ttlMs);
    const answer = await served(record);
    const iso = new Date(record.expiresAt).toISOString();
    expect(answer.body).toContain(`<time datetime="${iso}">${relative}</time>`);
    expect(answer.body).toMatch(/This request expires <time[^>]*>[^<]*<\/time> \([^)]*UTC\)\./);
  });

  it('offers "Need more time?" on a page with a form: a post to <page>/extend with the page token, saying how much it adds', async () => {
    const record = await pending(600_000);
    const answer = await served(record, {}, 'k.page-token');
    expect(answer.body).toContain(`action="/elicit/${record.id}/api-key/extend"`);
    expect(answer.body).toContain('<input type="hidden" name="_csrf" value="k.page-token">');
    expect(answer.body).toContain(PAGE_MESSAGES.time.extendHint(10));
    expect(answer.body).not.toContain(PAGE_MESSAGES.time.extended);
  });

  it('after the one extension: no button, the line says it got more time', async () => {
    const record = await pending(600_000);
    const extended = await service.extend(record.id);
    expect(extended.ok).toBe(true);
    const answer = await served(await records.get(parseElicitationId(record.id)!));
    expect(answer.body).not.toContain('/extend"');
    expect(answer.body).toContain(PAGE_MESSAGES.time.extended);
  });

  it('no expiry line for a page without a pending record, and no button on a page without a form token', async () => {
    const record = await pending(600_000);
    await service.decline(record.id);
    const finished = await served(await records.get(parseElicitationId(record.id)!));
    expect(finished.body).not.toContain('<time datetime=');
    expect((await served(undefined)).body).not.toContain('<time datetime=');
    const open = await pending(600_000);
    const noForm = await exchange({}, (_context, req, res) => {
      const done = { heading: 'Done', text: 'Received', message: 'm', labels: PAGE_MESSAGES.labels };
      res.send(answers.page(req, res, 200, 'done', done, { record: open }));
    });
    expect(noForm.body).toContain('<time datetime=');
    expect(noForm.body).not.toContain('/extend"');
  });

  it('lets the form lead to another origin when asked (the oauth page)', async () => {
    const answer = await served(undefined, {}, 't', 'https://github.com');
    expect(answer.headers.get('content-security-policy')).toContain("form-action 'self' https://github.com");
  });

  it('done: the done page of a transition that happened, in the request language', async () => {
    const record = await pending(600_000);
    const result = await service.decline(record.id);
    const answer = await exchange({ headers: { 'accept-language': 'de' } }, (_context, req, res) =>
      res.send(answers.done(req, res, record, result, 'Abgelehnt.')),
    );
    expect(answer.status).toBe(200);
    expect(answer.body).toContain(DE_MESSAGES.headings.done);
    expect(answer.body).toContain('Abgelehnt.');
  });

  it('done: the 409 page when the transition did not happen (the record had ended)', async () => {
    const record = await pending(600_000);
    await service.decline(record.id);
    const late = await service.cancel(record.id);
    const answer = await exchange({}, (_context, req, res) => answers.done(req, res, record, late, 'Cancelled.'));
    expect(answer.thrown).toBeInstanceOf(ElicitationFinishedException);
    expect((answer.thrown as ElicitationFinishedException).recordedStatus).toBe('declined');
  });

  it('redirect: the status and Location given, the headers of an answer without a page, an empty body', async () => {
    const answer = await exchange({}, (_context, _req, res) => {
      res.send(answers.redirect(res, 303, '/elicit/x/oauth'));
    });
    expect(answer.status).toBe(303);
    expect(answer.headers.get('location')).toBe('/elicit/x/oauth');
    expect(answer.headers.get('cache-control')).toBe('no-store');
    expect(answer.headers.get('content-security-policy')).toBe("default-src 'none';frame-ancestors 'none';base-uri 'none'");
    expect(answer.body).toBe('');
  });
});
