/**
 * BENCHMARK-ONLY routes of the demo, registered only with `ELICITATION_BENCH=1` (`bench: true`), for
 * `bench/http.bench.ts`:
 *  - bare baselines: what Nest itself serves on the same adapter, with no guard, filter or store, answers
 *    of the size of the module's status JSON (`GET /bench/baseline`) and of its api-key page
 *    (`GET /bench/baseline/html`), and a urlencoded form post parsed as the page's form is and answered with
 *    HTML of the done page's size (`POST /bench/baseline/post`); the HTML sizes are set by
 *    `POST /bench/baseline/size` once the bench has measured the real pages;
 *  - `POST /bench/elicitations`: creates pending api-key elicitations and hands out, for each, the CSRF pair
 *    a page render would (through the module's own `PageSecurity.issueCsrf`), so that a load test can post
 *    each form once without rendering every page first; `DELETE /bench/elicitations` forgets them all.
 * Never enable this in a deployed app: it creates elicitations for any user without identifying anyone.
 */
import { BadRequestException, Body, Controller, Delete, Get, Header, HttpCode, Post } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import { ElicitationService } from '../../src/index.js';
import { CSRF_COOKIE, PageSecurity } from '../../src/http/page-security.js';

/** The bench's elicitations: the message the demo's `connect-service github` uses. */
const MESSAGE = 'Enter your github API key so the assistant can connect to github for you.';
const BASELINE_ID = '1b4e28ba-2fa1-41d2-883f-0016d3cca427';
/** Far enough in the future that every record is past its purge time. */
const FAR_FUTURE_MS = 100 * 365 * 24 * 3600_000;
/** Most elicitations one `POST /bench/elicitations` creates: a client that needs more asks again. */
export const BENCH_MAX_BATCH = 200_000;

/** `n` bytes of plain HTML (a paragraph of filler in a minimal document). */
function htmlOfSize(n: number): string {
  const head = '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Baseline</title></head><body><p>';
  const tail = '</p></body></html>\n';
  return head + 'x'.repeat(Math.max(n - head.length - tail.length, 0)) + tail;
}

@Controller('bench')
export class BenchController {
  private html = htmlOfSize(3_000);
  private done = htmlOfSize(1_500);
  private security?: PageSecurity;

  constructor(
    private readonly service: ElicitationService,
    private readonly moduleRef: ModuleRef,
  ) {}

  /** Baseline for `GET /elicit/:id/status`: a JSON object of the same shape and size, built per request. */
  @Get('baseline')
  @Header('Cache-Control', 'no-store')
  baseline(): Record<string, unknown> {
    const now = Date.now();
    return {
      elicitationId: BASELINE_ID,
      status: 'pending',
      createdAt: new Date(now).toISOString(),
      expiresAt: new Date(now + 600_000).toISOString(),
      completed: false,
    };
  }

  /** Baseline for the api-key page: a constant HTML document of the page's size. */
  @Get('baseline/html')
  @Header('Content-Type', 'text/html; charset=utf-8')
  @Header('Cache-Control', 'no-store')
  baselineHtml(): string {
    return this.html;
  }

  /**
   * Baseline for the api-key form post: the body comes parsed by the adapter's urlencoded parser (Nest's on
   * Express, `@fastify/formbody` on Fastify, as for the module's route); the fields are read, and a constant HTML
   * document of the done page's size answers.
   */
  @Post('baseline/post')
  @HttpCode(200)
  @Header('Content-Type', 'text/html; charset=utf-8')
  @Header('Cache-Control', 'no-store')
  baselinePost(@Body() body: { _csrf?: unknown; apiKey?: unknown; action?: unknown }): string {
    if (typeof body?._csrf !== 'string' || typeof body.apiKey !== 'string' || body.action !== 'submit') {
      throw new BadRequestException('expected the fields _csrf, apiKey and action=submit');
    }
    return this.done;
  }

  /** Sets the sizes of the HTML baselines: the page's, the done page's (the bench measures the real pages first). */
  @Post('baseline/size')
  @HttpCode(200)
  setSize(@Body() body: { htmlBytes?: unknown; doneBytes?: unknown }): { htmlBytes: number; doneBytes: number } {
    const valid = (v: unknown) => Number.isInteger(v) && (v as number) > 0 && (v as number) <= 1_000_000;
    if (valid(body?.htmlBytes)) this.html = htmlOfSize(body.htmlBytes as number);
    if (valid(body?.doneBytes)) this.done = htmlOfSize(body.doneBytes as number);
    return { htmlBytes: Buffer.byteLength(this.html), doneBytes: Buffer.byteLength(this.done) };
  }

  /**
   * Creates `count` (at most BENCH_MAX_BATCH) pending api-key elicitations for `user` and returns
   * `[id, token, cookie]` for each: the form's `_csrf` token and the `elicit_csrf=<nonce>` cookie pair, issued
   * exactly as a page render does.
   */
  @Post('elicitations')
  @HttpCode(200)
  async create(@Body() body: { count?: unknown; user?: unknown }): Promise<{ items: Array<[string, string, string]> }> {
    const count = Math.min(Math.max(Math.floor(Number(body?.count) || 0), 0), BENCH_MAX_BATCH);
    const user = typeof body?.user === 'string' ? body.user : 'alice';
    this.security ??= this.moduleRef.get(PageSecurity, { strict: false });
    const items: Array<[string, string, string]> = [];
    let cookie = '';
    const capture = { header: (_name: string, value: string) => void (cookie = value.split(';')[0]) };
    for (let i = 0; i < count; i++) {
      const created = await this.service.createUrlElicitation({
        kind: 'api-key',
        message: MESSAGE,
        userId: user,
        type: 'api-key-bench',
        metadata: { service: 'bench' },
      });
      const token = this.security.issueCsrf(created.elicitationId, created.expiresAt.getTime(), capture);
      if (!cookie.startsWith(`${CSRF_COOKIE}=`)) throw new Error('issueCsrf set no CSRF cookie');
      items.push([created.elicitationId, token, cookie]);
    }
    return { items };
  }

  /**
   * Forgets every elicitation, so that each measured run starts from an empty store: a far-future sweep
   * expires the pending ones, a second one past their retention forgets every record.
   */
  @Delete('elicitations')
  async clear(): Promise<{ expired: number }> {
    const now = Date.now();
    const expired = await this.service.sweep(now + FAR_FUTURE_MS);
    await this.service.sweep(now + 2 * FAR_FUTURE_MS);
    return { expired };
  }
}
