/**
 * The audit log (issue #15.4) over real HTTP: a real Nest app with the demo's MCP route and the pages, its `audit`
 * option a callback collecting every record, driven by pages (`submitPage`, raw posts) and a raw 2026-07-28 call:
 * one record per security-relevant event (created, page opened, page refused for identity, CSRF, expiry and
 * throttling, answered, declined, cancelled, expired, answer consumed, requestState refused), each with its
 * elicitation, kind, user and, where a browser asked, the client's address and agent; and none of the planted
 * secrets (an api-key answer, a hosted form's answer, a forged and a real CSRF token, a forged requestState) in any
 * record. `audit: 'log'` writes each record as one JSON line through Nest's Logger.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { LoggerService } from '@nestjs/common';
import { ElicitationService } from '../../src/lifecycle/elicitation.service.js';
import { defineForm } from '../../src/forms/define-form.js';
import type { ElicitationAuditRecord } from '../../src/options/audit-record.js';
import { submitPage } from '../../src/testing/index.js';
import { startLadderApp, type LadderApp } from '../support/ladder-app.js';
import { startPageApp } from '../support/page-app.js';

const RUN = randomUUID().slice(0, 8);
const KEY_SECRET = `sk-key-${randomUUID()}`;
const FORM_SECRET = `form-${randomUUID()}`;
const CSRF_SECRET = `csrf-${randomUUID()}`;
const STATE_SECRET = `state-${randomUUID()}`;
const AGENT = 'audit-e2e-browser/1.0';
const CSRF_FIELD = /name="_csrf" value="([^"]+)"/;

const delay = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

describe('audit records of a real app over HTTP', () => {
  const records: ElicitationAuditRecord[] = [];
  const owner = `owner-${RUN}`;
  const cookie = `demo_user=${owner}`;
  const browser = { cookie, headers: { 'User-Agent': AGENT } };
  const noteForm = defineForm({ type: 'object', properties: { note: { type: 'string', title: 'Note' } }, required: ['note'] });
  /** Secrets seen on the way that must appear in no record (the real CSRF token is added when read). */
  const planted = [KEY_SECRET, FORM_SECRET, CSRF_SECRET, STATE_SECRET];
  let ladder: LadderApp;
  let service: ElicitationService;

  const recordsOf = (id: string) => records.filter((r) => r.elicitationId === id);
  const create = (kind: 'api-key' | 'confirm' | 'form', extra: Record<string, unknown> = {}) =>
    service.createUrlElicitation({ kind, userId: owner, message: `Audit ${kind}`, ...extra });

  beforeAll(async () => {
    ladder = await startLadderApp({ audit: (record) => void records.push(record) }, (elicitation, server) => {
      elicitation.registerTool(server, 'ask-key', { description: 'Asks for a key' }, async (_args: undefined, el) => {
        await el.requireAnswer({ kind: 'api-key', message: 'Your key' });
        return { content: [{ type: 'text', text: 'done' }] };
      });
    });
    service = ladder.app.get(ElicitationService);
  });

  afterAll(async () => {
    await ladder?.app.close();
  });

  it('created, page.opened and answered (with the browser address and agent), then answer.consumed', async () => {
    const { elicitationId: id, url } = await create('api-key');
    const page = await submitPage(url, { apiKey: KEY_SECRET }, browser);
    expect(page.status).toBe(200);
    expect((await service.getResult(id, { consume: true }))?.status).toBe('completed');
    const mine = recordsOf(id);
    expect(mine.map((r) => r.event)).toEqual(['created', 'page.opened', 'answered', 'answer.consumed']);
    const [created, opened, answered, consumed] = mine;
    expect(created).toEqual({
      time: expect.any(String),
      event: 'created',
      outcome: 'success',
      elicitationId: id,
      kind: 'api-key',
      userId: owner,
    });
    expect(new Date(created.time).toISOString()).toBe(created.time);
    expect(opened).toMatchObject({
      event: 'page.opened',
      outcome: 'success',
      kind: 'api-key',
      userId: owner,
      userAgent: AGENT,
      status: 200,
    });
    expect(opened.ip).toMatch(/127\.0\.0\.1$/);
    expect(answered).toMatchObject({ event: 'answered', outcome: 'success', kind: 'api-key', userId: owner, userAgent: AGENT });
    expect(answered.ip).toMatch(/127\.0\.0\.1$/);
    // Read by the service, not by a browser: no address.
    expect(consumed).toEqual({
      time: expect.any(String),
      event: 'answer.consumed',
      outcome: 'success',
      elicitationId: id,
      kind: 'api-key',
      userId: owner,
    });
  });

  it('a hosted form answered, a confirm page declined, an elicitation cancelled by the app', async () => {
    const form = await create('form', { form: noteForm });
    expect((await submitPage(form.url, { note: FORM_SECRET }, browser)).status).toBe(200);
    expect(recordsOf(form.elicitationId).map((r) => r.event)).toEqual(['created', 'page.opened', 'answered']);
    const confirm = await create('confirm');
    expect((await submitPage(confirm.url, { action: 'cancel' }, browser)).status).toBe(200);
    expect(recordsOf(confirm.elicitationId).at(-1)).toMatchObject({ event: 'declined', kind: 'confirm', userId: owner, userAgent: AGENT });
    const cancelled = await create('confirm');
    await service.cancel(cancelled.elicitationId);
    expect(recordsOf(cancelled.elicitationId).map((r) => r.event)).toEqual(['created', 'cancelled']);
    expect(recordsOf(cancelled.elicitationId)[1].ip).toBeUndefined();
  });

  it('page.refused: another user (identity), a forged CSRF token (csrf), an expired page (expired, after the expiry itself)', async () => {
    const { elicitationId: id, url } = await create('api-key');
    const other = await fetch(url, { headers: { cookie: `demo_user=intruder-${RUN}`, 'User-Agent': AGENT } });
    expect(other.status).toBe(403);
    const pageHtml = await (await fetch(url, { headers: { cookie } })).text();
    planted.push(CSRF_FIELD.exec(pageHtml)![1]);
    const forged = await fetch(url, {
      method: 'POST',
      headers: { cookie, 'content-type': 'application/x-www-form-urlencoded', origin: new URL(url).origin },
      body: new URLSearchParams({ _csrf: CSRF_SECRET, apiKey: KEY_SECRET }).toString(),
    });
    expect(forged.status).toBe(403);
    const refused = recordsOf(id).filter((r) => r.event === 'page.refused');
    expect(refused).toEqual([
      expect.objectContaining({ outcome: 'failure', reason: 'identity', status: 403, kind: 'api-key', userId: owner, userAgent: AGENT }),
      expect.objectContaining({ outcome: 'failure', reason: 'csrf', status: 403, kind: 'api-key' }),
    ]);
    const soon = await create('confirm', { ttlMs: 1 });
    await delay(5);
    expect((await fetch(soon.url, { headers: { cookie } })).status).toBe(410);
    expect(recordsOf(soon.elicitationId).map((r) => [r.event, r.reason])).toEqual([
      ['created', undefined],
      ['expired', undefined],
      ['page.refused', 'expired'],
    ]);
  });

  it('request-state.refused for a forged requestState (2026-07-28), naming the reason and the verified user', async () => {
    const response = await fetch(ladder.mcpUrl, {
      method: 'POST',
      headers: {
        'Content-Type': 'application/json',
        Accept: 'application/json, text/event-stream',
        'MCP-Protocol-Version': '2026-07-28',
        'Mcp-Method': 'tools/call',
        'Mcp-Name': 'ask-key',
        Authorization: `Bearer ${owner}`,
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: {
          name: 'ask-key',
          arguments: {},
          requestState: `v1.${STATE_SECRET}.${STATE_SECRET}`,
          _meta: {
            'io.modelcontextprotocol/protocolVersion': '2026-07-28',
            'io.modelcontextprotocol/clientInfo': { name: 'audit-e2e', version: '1.0.0' },
            'io.modelcontextprotocol/clientCapabilities': { elicitation: { form: {}, url: {} } },
          },
        },
      }),
    });
    expect(((await response.json()) as { error?: { code: number } }).error?.code).toBe(-32602);
    const refused = records.filter((r) => r.event === 'request-state.refused');
    expect(refused).toHaveLength(1);
    expect(refused[0]).toEqual({
      time: expect.any(String),
      event: 'request-state.refused',
      outcome: 'failure',
      userId: owner,
      reason: expect.any(String),
    });
  });

  it('no record holds an answer, a CSRF token or a requestState', () => {
    expect(planted).toHaveLength(5);
    const text = JSON.stringify(records);
    for (const secret of planted) expect(text).not.toContain(secret);
    for (const record of records) {
      expect(
        Object.keys(record).every((k) =>
          ['time', 'event', 'outcome', 'elicitationId', 'kind', 'userId', 'ip', 'userAgent', 'reason', 'status'].includes(k),
        ),
      ).toBe(true);
    }
  });
});

describe("audit: 'log' (one JSON line per record through Nest's Logger), and page.refused for throttling", () => {
  const lines: Array<{ message: string; context?: string }> = [];
  const logger: LoggerService = {
    log: (message: unknown, context?: string) => void lines.push({ message: String(message), context }),
    error: () => undefined,
    warn: () => undefined,
  };

  it('writes a created record and a throttled refusal, each a JSON object on one line under the ElicitationAudit context', async () => {
    const { app, service } = await startPageApp({ audit: 'log', throttle: { limit: 1, ttlMs: 60_000 } }, { logger, listen: true });
    try {
      const { url } = await service.createUrlElicitation({ kind: 'confirm', userId: 'u1', message: 'Throttled?' });
      const path = new URL(url).pathname;
      const origin = (await app.getUrl()).replace('[::1]', '127.0.0.1');
      expect((await fetch(`${origin}${path}`, { headers: { 'x-test-user': 'u1' } })).status).toBe(200);
      expect((await fetch(`${origin}${path}`, { headers: { 'x-test-user': 'u1' } })).status).toBe(429);
    } finally {
      await app.close();
    }
    const audit = lines.filter((l) => l.context === 'ElicitationAudit');
    expect(audit.every((l) => !l.message.includes('\n'))).toBe(true);
    const parsed = audit.map((l) => JSON.parse(l.message) as ElicitationAuditRecord);
    expect(parsed.map((r) => [r.event, r.reason, r.status])).toEqual([
      ['created', undefined, undefined],
      ['page.opened', undefined, 200],
      ['page.refused', 'throttled', 429],
    ]);
  });
});
