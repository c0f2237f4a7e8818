/**
 * BENCHMARK-ONLY routes of the demo (with `ELICITATION_BENCH=1`), for `bench/http.bench.ts`: bare routes shaped like
 * the other Nest implementation of these pages (the `url-elicitation` work of `@rekog/mcp-nest`: its
 * `src/elicitation/elicitation.controller.ts` and templates, read at rekog-labs/MCP-Nest dec121c), so that each of
 * the module's routes is compared, in the same run, with the work that implementation does for the same request:
 *  - `GET /bench/peer/:id/status`: the record from a Map (its memory store's get and getResult), JSON of its shape;
 *  - `GET /bench/peer/:id/api-key`: the record from the Map, a page built per request by a template function (the
 *    message and the form's action escaped into it), `@Res()` with a Content-Type and the page; no CSRF token, no
 *    security headers, no throttle, no user check (it has none of them);
 *  - `POST /bench/peer/:id/api-key`: the body's key checked, the record completed in the Map, a success page built.
 * The pages have the sizes of its api-key page and success page (PEER_PAGE_BYTES, PEER_DONE_BYTES). Records come
 * from `POST /bench/peer/records` and go with `DELETE /bench/peer/records`. Never enable this in a deployed app.
 */
import { randomUUID } from 'node:crypto';
import { BadRequestException, Body, Controller, Delete, Get, HttpCode, NotFoundException, Param, Post, Res } from '@nestjs/common';

/** Bytes of the other implementation's api-key page with the bench's message (its base template and form). */
export const PEER_PAGE_BYTES = 4_600;
/** Bytes of its success page. */
export const PEER_DONE_BYTES = 3_900;

const MESSAGE = 'Enter your github API key so the assistant can connect to github for you.';

/** What its memory store keeps of an elicitation, as far as these routes read it. */
interface PeerRecord {
  id: string;
  status: 'pending' | 'complete';
  createdAt: Date;
  expiresAt: Date;
  message: string;
  result?: { success: boolean; action: string; completedAt: Date; data: Record<string, string> };
}

const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#039;' };
const escape = (text: string) => text.replace(/[&<>"']/g, (c) => ENTITIES[c]);

/** Filler of a stylesheet, so that a page built around `content` has `bytes` bytes. */
function pageOf(bytes: number, title: string, content: string): string {
  const head = `<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="UTF-8">\n<title>${escape(title)} - MCP Server</title>\n<style>\n`;
  const tail = `</style>\n</head>\n<body>\n<div class="container">\n<h1>${escape(title)}</h1>\n${content}\n</div>\n</body>\n</html>`;
  const filler = Math.max(bytes - Buffer.byteLength(head) - Buffer.byteLength(tail), 0);
  return head + '.x { margin: 0; }\n'.repeat(Math.ceil(filler / 17)).slice(0, filler) + tail;
}

/** The minimal surface of an Express response or a Fastify reply these routes use. */
interface Reply {
  header(name: string, value: string): unknown;
  status(code: number): Reply;
  send(body: string): unknown;
}

@Controller('bench/peer')
export class BenchPeerController {
  private readonly records = new Map<string, PeerRecord>();

  @Get(':id/status')
  status(@Param('id') id: string): Record<string, unknown> {
    const record = this.records.get(id);
    if (!record) throw new NotFoundException('Elicitation not found or expired');
    const { result } = record;
    return {
      elicitationId: id,
      status: record.status,
      createdAt: record.createdAt,
      expiresAt: record.expiresAt,
      completed: result !== undefined,
      result: result ? { success: result.success, action: result.action, completedAt: result.completedAt } : undefined,
    };
  }

  @Get(':id/api-key')
  page(@Param('id') id: string, @Res() res: Reply): void {
    const record = this.records.get(id);
    if (!record || record.status === 'complete') return this.error(res);
    const content =
      `<p class="message">${escape(record.message)}</p>\n<form method="POST" action="${escape(`/bench/peer/${id}/api-key`)}">\n` +
      `<input type="hidden" name="elicitationId" value="${escape(id)}" />\n<label for="apiKey">API Key</label>\n` +
      `<input type="password" id="apiKey" name="apiKey" required autocomplete="off" />\n<button type="submit">Submit</button>\n</form>`;
    res.header('Content-Type', 'text/html');
    res.send(pageOf(PEER_PAGE_BYTES, 'API Key', content));
  }

  @Post(':id/api-key')
  @HttpCode(200)
  submit(@Param('id') id: string, @Body() body: { apiKey?: unknown }, @Res() res: Reply): void {
    const record = this.records.get(id);
    if (!record || record.status === 'complete') return this.error(res);
    if (typeof body?.apiKey !== 'string' || !body.apiKey.trim()) return this.error(res);
    record.status = 'complete';
    record.result = { success: true, action: 'confirm', completedAt: new Date(), data: { apiKey: body.apiKey.trim() } };
    res.header('Content-Type', 'text/html');
    res.send(pageOf(PEER_DONE_BYTES, 'API Key Received', '<div class="success">Your API key has been securely received.</div>'));
  }

  /** `count` pending records; their ids. */
  @Post('records')
  @HttpCode(200)
  seed(@Body() body: { count?: unknown }): { ids: string[] } {
    const count = Math.min(Math.max(Math.floor(Number(body?.count) || 0), 0), 200_000);
    if (!count) throw new BadRequestException('count: a positive number of records');
    const now = Date.now();
    const ids: string[] = [];
    for (let i = 0; i < count; i++) {
      const id = randomUUID();
      this.records.set(id, { id, status: 'pending', createdAt: new Date(now), expiresAt: new Date(now + 600_000), message: MESSAGE });
      ids.push(id);
    }
    return { ids };
  }

  @Delete('records')
  clear(): { cleared: number } {
    const cleared = this.records.size;
    this.records.clear();
    return { cleared };
  }

  private error(res: Reply): void {
    res.header('Content-Type', 'text/html');
    res.status(400).send(pageOf(PEER_DONE_BYTES, 'Error', '<div class="error">Elicitation not found or expired</div>'));
  }
}
