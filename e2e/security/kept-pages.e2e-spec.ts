/**
 * A page never carries another elicitation (issue 28, item 3). The pages are kept rendered by what they show
 * (`TemplateRenderer`), so two users asked the same question in the same minute get pages built from one kept
 * render: what belongs to one elicitation (its id in the "Need more time?" form's action, the expiry instant the
 * countdown runs to, the CSRF token) is filled in per render, never kept. Walked over the real routes of a real
 * app: alice's and bob's elicitations differ only in id and expiry instant (same question, same minute, same
 * relative time), each page shows its own and never the other's, and bob's "Need more time?" extends his own.
 */
import type { Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { INestApplication } from '@nestjs/common';
import request from 'supertest';
import type { ElicitationService } from '../../src/lifecycle/elicitation.service.js';
import type { ElicitationKind } from '../../src/core/elicitation.types.js';
import { as, startPageApp } from '../support/page-app.js';

/** A whole minute about two hours ahead: both expiries fall in it, and "in 2 hours" reads the same for both. */
function minuteAhead(): number {
  return Math.ceil((Date.now() + 2 * 3_600_000) / 60_000) * 60_000;
}

/** What a page shows of the elicitation it is for: the extend form's action, the countdown's end, the token. */
function shownOn(html: string) {
  return {
    extendAction: /<form class="extend" method="post" action="([^"]*)">/.exec(html)?.[1],
    expiresAt: /data-expires-at="([^"]*)"/.exec(html)?.[1],
    datetime: /<time datetime="([^"]*)">/.exec(html)?.[1],
    relative: /<time datetime="[^"]*">([^<]*)<\/time>/.exec(html)?.[1],
    tokens: [...html.matchAll(/name="_csrf" value="([^"]*)"/g)].map((m) => m[1]),
  };
}

describe('kept pages carry only their own elicitation (two users, same question, same minute)', () => {
  let app: INestApplication<Server>;
  let service: ElicitationService;

  beforeAll(async () => {
    // A fixed extension, so that the "Need more time?" hint reads the same for both lifetimes.
    ({ app, service } = await startPageApp({ extendMs: 600_000 }));
  });
  afterAll(async () => {
    await app.close();
  });

  /** alice's and bob's elicitations of one kind and message, expiring 30 s apart within one minute. */
  async function pair(kind: Extract<ElicitationKind, 'confirm' | 'api-key'>) {
    const minute = minuteAhead();
    const create = async (userId: string, expiresAt: number) => {
      const created = await service.createUrlElicitation({
        kind,
        message: 'Deploy shop to production?',
        userId,
        ttlMs: expiresAt - Date.now(),
      });
      return {
        id: created.elicitationId,
        path: new URL(created.url).pathname,
        iso: created.expiresAt.toISOString(),
        user: userId,
      };
    };
    return { alice: await create('alice', minute + 10_000), bob: await create('bob', minute + 40_000) };
  }

  for (const kind of ['confirm', 'api-key'] as const) {
    it(`the ${kind} page: each user's page holds its own id and expiry, never the other's`, async () => {
      const { alice, bob } = await pair(kind);
      expect(alice.iso.slice(0, 16)).toBe(bob.iso.slice(0, 16));
      const server = app.getHttpServer();
      // alice's page first (it is kept), then bob's (built from what was kept), then alice's again.
      const pages = [];
      for (const who of [alice, bob, alice]) {
        const res = await request(server).get(who.path).set(as(who.user)).expect(200);
        pages.push({ who, other: who === alice ? bob : alice, html: res.text });
      }
      const relatives = new Set<string | undefined>();
      for (const { who, other, html } of pages) {
        const shown = shownOn(html);
        relatives.add(shown.relative);
        expect({ ...shown, relative: undefined, tokens: shown.tokens.length }).toEqual({
          extendAction: `${who.path}/extend`,
          expiresAt: who.iso,
          datetime: who.iso,
          relative: undefined,
          tokens: 2,
        });
        // Nothing of the other elicitation anywhere on the page: not its id (its pages, its extend form, its
        // status URL), not its expiry instant.
        expect(html).not.toContain(other.id);
        expect(html).not.toContain(`/elicit/${other.id}/status`);
        expect(html).not.toContain(other.iso);
        expect(html).toContain(who.id);
      }
      // The two pages showed the same relative time: they were built from one kept render.
      expect(relatives.size).toBe(1);
    });
  }

  it("bob's \"Need more time?\" (his page's own form, as a browser posts it) extends his elicitation, not alice's", async () => {
    const { alice, bob } = await pair('confirm');
    const server = app.getHttpServer();
    await request(server).get(alice.path).set(as('alice')).expect(200);
    const page = await request(server).get(bob.path).set(as('bob')).expect(200);
    const { extendAction, tokens } = shownOn(page.text);
    const cookie = ([] as string[])
      .concat(page.headers['set-cookie'] ?? [])
      .find((c) => c.startsWith('elicit_csrf='))!
      .split(';')[0];
    const res = await request(server)
      .post(extendAction!)
      .set({ ...as('bob'), Cookie: cookie })
      .type('form')
      .send({ _csrf: tokens[0] });
    expect({ status: res.status, location: res.headers.location }).toEqual({ status: 303, location: bob.path });
    const [bobNow, aliceNow] = await Promise.all([service.getStatus(bob.id), service.getStatus(alice.id)]);
    expect(Date.parse(bobNow!.expiresAt)).toBe(Date.parse(bob.iso) + 600_000);
    expect(aliceNow!.expiresAt).toBe(alice.iso);
  });
});
