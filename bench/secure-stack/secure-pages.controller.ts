/**
 * The secure stack's routes (bench/secure-stack): the status JSON, the api-key page and its post, written as a Nest
 * user writes them on top of `helmet`, a CSRF library and `@nestjs/throttler` (all three applied around these routes
 * by secure-stack.app.ts), with the sealed `Map` of sealed-records.ts and the templates of secure-templates.ts. What
 * differs between Express and Fastify (the CSRF library's token, helmet's nonces) comes in as `SecureAdapterParts`.
 */
import { randomUUID } from 'node:crypto';
import {
  BadRequestException,
  Body,
  ConflictException,
  Controller,
  Delete,
  ForbiddenException,
  Get,
  GoneException,
  Header,
  HttpCode,
  Inject,
  NotFoundException,
  Param,
  ParseUUIDPipe,
  Post,
  Req,
  Res,
  UnauthorizedException,
} from '@nestjs/common';
import { SkipThrottle } from '@nestjs/throttler';
import { SealedRecords, type SecureRecord } from './sealed-records.js';
import { compileSecureTemplates } from './secure-templates.js';

/** What the routes read of a request on either adapter (cookie-parser and @fastify/cookie both give `cookies`). */
export interface SecureRequest {
  cookies?: Record<string, string | undefined>;
}

/** The adapter's CSRF token and CSP nonces for one response. */
export interface SecureAdapterParts {
  csrfToken(req: unknown, res: unknown): string;
  nonces(res: unknown): { style: string; script: string };
}

export const SECURE_ADAPTER_PARTS = Symbol('SecureAdapterParts');

const TITLE = 'nestjs-mcp-elicitation demo';
const MAX_API_KEY_LENGTH = 4096;
const TTL_MS = 600_000;
const relative = new Intl.RelativeTimeFormat('en', { numeric: 'auto' });
const absolute = new Intl.DateTimeFormat('en', { dateStyle: 'medium', timeStyle: 'short', timeZone: 'UTC' });
const uuid = new ParseUUIDPipe({ version: '4' });

@Controller('elicit')
export class SecurePagesController {
  private readonly templates = compileSecureTemplates();

  constructor(
    private readonly records: SealedRecords,
    @Inject(SECURE_ADAPTER_PARTS) private readonly parts: SecureAdapterParts,
  ) {}

  @Get(':id/status')
  @Header('Cache-Control', 'no-store')
  status(@Param('id', uuid) id: string): Record<string, unknown> {
    const record = this.records.get(id);
    if (!record) throw new NotFoundException('Elicitation not found or expired');
    return {
      elicitationId: record.id,
      status: record.expiresAt <= Date.now() && record.status === 'pending' ? 'expired' : record.status,
      createdAt: new Date(record.createdAt).toISOString(),
      expiresAt: new Date(record.expiresAt).toISOString(),
      completed: record.status !== 'pending',
    };
  }

  @Get(':id/api-key')
  @Header('Cache-Control', 'no-store')
  @Header('Content-Type', 'text/html; charset=utf-8')
  page(@Param('id', uuid) id: string, @Req() req: SecureRequest, @Res({ passthrough: true }) res: unknown): string {
    const record = this.pending(id, req);
    return this.keyPage(record, req, res, null);
  }

  @Post(':id/api-key')
  @HttpCode(200)
  @Header('Cache-Control', 'no-store')
  @Header('Content-Type', 'text/html; charset=utf-8')
  submit(
    @Param('id', uuid) id: string,
    @Body() body: { apiKey?: unknown; action?: unknown } | undefined,
    @Req() req: SecureRequest,
    @Res({ passthrough: true }) res: unknown,
  ): string {
    const record = this.pending(id, req);
    if (body?.action === 'cancel') {
      record.status = 'declined';
      this.records.set(record);
      return this.done(record, res, 'You declined. The assistant was told.');
    }
    const apiKey = typeof body?.apiKey === 'string' ? body.apiKey.trim() : '';
    if (!apiKey || apiKey.length > MAX_API_KEY_LENGTH) {
      (res as { status(code: number): unknown }).status(400);
      return this.keyPage(record, req, res, 'Enter the API key.');
    }
    record.status = 'complete';
    record.answer = { apiKey };
    this.records.set(record);
    return this.done(record, res, 'The API key was received. The assistant can go on now.');
  }

  /** The record behind a page, pending and the browser user's; otherwise the exception a Nest user throws. */
  private pending(id: string, req: SecureRequest): SecureRecord {
    const record = this.records.get(id);
    if (!record) throw new NotFoundException('Elicitation not found or expired');
    const user = req.cookies?.demo_user;
    if (!user) throw new UnauthorizedException('Sign in first');
    if (user !== record.userId) throw new ForbiddenException('This request is for another account');
    if (record.expiresAt <= Date.now()) throw new GoneException('This request has expired');
    if (record.status !== 'pending') throw new ConflictException(`This request was already ${record.status}`);
    return record;
  }

  private keyPage(record: SecureRecord, req: SecureRequest, res: unknown, error: string | null): string {
    const nonces = this.parts.nonces(res);
    const minutes = Math.max(Math.ceil((record.expiresAt - Date.now()) / 60_000), 0);
    return this.templates.apiKey({
      title: TITLE,
      heading: 'An API key is needed',
      styleNonce: nonces.style,
      scriptNonce: nonces.script,
      message: record.message,
      expiresAt: new Date(record.expiresAt).toISOString(),
      expiresIn: relative.format(minutes, 'minute'),
      expiresOn: absolute.format(record.expiresAt),
      id: record.id,
      csrf: this.parts.csrfToken(req, res),
      maxLength: MAX_API_KEY_LENGTH,
      error,
    });
  }

  private done(record: SecureRecord, res: unknown, text: string): string {
    const nonces = this.parts.nonces(res);
    return this.templates.done({
      title: TITLE,
      heading: 'Thank you',
      styleNonce: nonces.style,
      scriptNonce: nonces.script,
      message: record.message,
      expiresAt: null,
      expiresIn: '',
      expiresOn: '',
      id: record.id,
      csrf: '',
      text,
    });
  }
}

/** BENCHMARK ONLY: records for the load (created pending for one user), and forgetting them. Not throttled. */
@Controller('bench/records')
@SkipThrottle()
export class SecureSeedController {
  constructor(private readonly records: SealedRecords) {}

  @Post()
  @HttpCode(200)
  seed(@Body() body: { count?: unknown; userId?: unknown; message?: unknown }): { ids: string[] } {
    const count = Math.min(Math.max(Math.floor(Number(body?.count) || 0), 0), 200_000);
    if (!count || typeof body.userId !== 'string' || typeof body.message !== 'string') {
      throw new BadRequestException('count, userId and message');
    }
    const now = Date.now();
    const ids: string[] = [];
    for (let i = 0; i < count; i++) {
      const id = randomUUID();
      this.records.set({ id, userId: body.userId, message: body.message, status: 'pending', createdAt: now, expiresAt: now + TTL_MS });
      ids.push(id);
    }
    return { ids };
  }

  @Delete()
  clear(): { cleared: number } {
    return { cleared: this.records.clear() };
  }
}
