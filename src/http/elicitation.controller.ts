import {
  Body,
  Controller,
  ForbiddenException,
  Get,
  Header,
  Inject,
  Param,
  PayloadTooLargeException,
  Post,
  Req,
  Res,
  ServiceUnavailableException,
  UnauthorizedException,
  UseFilters,
  UseGuards,
  type Type,
} from '@nestjs/common';
import { plainToInstance } from 'class-transformer';
import { validate, type ValidationError } from 'class-validator';
import { ELICITATION_RESOLVED_OPTIONS, MAX_API_KEY_LENGTH } from '../elicitation.constants.js';
import type { ResolvedElicitationOptions } from '../elicitation-options.interface.js';
import { ElicitationService } from '../elicitation.service.js';
import type { ElicitationKind, ElicitationRecord, ElicitationStatusView, TransitionResult } from '../elicitation.types.js';
import { ElicitationExpiredException } from '../errors/elicitation-expired.exception.js';
import { ElicitationFinishedException } from '../errors/elicitation-finished.exception.js';
import { ElicitationNotFoundException } from '../errors/elicitation-not-found.exception.js';
import { ElicitationStoreUnavailableError } from '../errors/elicitation-store-unavailable.error.js';
import type { FieldIssue } from '../errors/elicitation-validation.error.js';
import { ElicitationStore } from '../stores/elicitation-store.js';
import { ApiKeySubmissionDto, ConfirmSubmissionDto } from './api-key-submission.dto.js';
import { ElicitationPageFilter } from './elicitation-page.filter.js';
import { ElicitationThrottlerGuard } from './elicitation-throttler.guard.js';
import { fieldViews, formPlanOf, initialInput, readSubmission, type FormPlan, type KeptInput } from './form-view.js';
import { PageSecurity, raw } from './page-security.js';
import { TemplateRenderer, type TemplateName } from './template-renderer.js';

/** The response methods used here, common to Express and Fastify. */
interface PageResponse {
  status(code: number): unknown;
  header(name: string, value: string): unknown;
}

type FormBody = Record<string, unknown> | undefined;

/** Constraint names in the order their message is the most useful to show. */
const MESSAGE_PRIORITY = ['isIn', 'isString', 'isNotEmpty', 'maxLength'];

/** One readable message for a failed DTO: the first failing constraint in `MESSAGE_PRIORITY` order. */
function firstMessage(errors: ValidationError[]): string {
  const constraints = errors[0]?.constraints ?? {};
  const key = MESSAGE_PRIORITY.find((k) => k in constraints) ?? Object.keys(constraints)[0];
  return (key && constraints[key]) || 'Check what you entered.';
}

/**
 * Size of a parsed form body as url-encoded text (for bodies sent without a Content-Length). A body that
 * `URLSearchParams` cannot take (a JSON array, or a nested value without a usable `toString`, such as the
 * form field `a[toString]=x`) is measured as JSON instead of throwing (which answered 500).
 */
function parsedBodyBytes(body: unknown): number {
  if (!body || typeof body !== 'object') return 0;
  try {
    return Buffer.byteLength(new URLSearchParams(body as Record<string, string>).toString());
  } catch {
    return Buffer.byteLength(JSON.stringify(body) ?? '');
  }
}

/** Thrown when an unidentified browser should sign in first; the page answers 303 to the login page. */
class SignInRedirect {
  constructor(readonly location: string) {}
}

/**
 * The browser pages (`/:id/api-key`, `/:id/confirm`, `/:id/form`, `/:id/external`) and the status route
 * (`/:id/status`), all throttled per IP. Mounted under the `routePrefix` by `createElicitationController`.
 */
@UseGuards(ElicitationThrottlerGuard)
export class ElicitationController {
  constructor(
    private readonly service: ElicitationService,
    private readonly renderer: TemplateRenderer,
    private readonly security: PageSecurity,
    @Inject(ELICITATION_RESOLVED_OPTIONS) private readonly options: ResolvedElicitationOptions,
    private readonly store: ElicitationStore,
  ) {}

  /** Polled by MCP clients. Status only: never any submitted data. */
  @Get(':id/status')
  @Header('Cache-Control', 'no-store')
  async status(@Param('id') id: string): Promise<ElicitationStatusView> {
    if (!this.service.isValidId(id)) throw new ElicitationNotFoundException();
    let view: ElicitationStatusView | undefined;
    try {
      view = await this.service.getStatus(id);
    } catch (error) {
      if (error instanceof ElicitationStoreUnavailableError) {
        throw new ServiceUnavailableException('The elicitation store is temporarily unavailable. Try again shortly.');
      }
      throw error;
    }
    if (!view) throw new ElicitationNotFoundException();
    return view;
  }

  @Get(':id/api-key')
  @UseFilters(ElicitationPageFilter)
  async apiKeyPage(@Param('id') id: string, @Req() req: unknown, @Res({ passthrough: true }) res: PageResponse) {
    const record = await this.openPending(id, 'api-key', req, res);
    if (!record) return '';
    return this.form(res, 200, 'api-key', record, {});
  }

  @Post(':id/api-key')
  @UseFilters(ElicitationPageFilter)
  async submitApiKey(@Param('id') id: string, @Body() body: FormBody, @Req() req: unknown, @Res({ passthrough: true }) res: PageResponse) {
    const record = await this.openPost(id, 'api-key', req, body);
    if (body?.action === 'cancel') return this.finished(res, record, await this.service.decline(id), 'You declined the request.');
    const dto = plainToInstance(ApiKeySubmissionDto, { action: body?.action, apiKey: body?.apiKey });
    const errors = await validate(dto, { forbidUnknownValues: true });
    if (errors.length > 0) return this.form(res, 400, 'api-key', record, {}, firstMessage(errors));
    return this.finished(res, record, await this.service.complete(id, { apiKey: dto.apiKey }), 'Thank you. The API key was received.');
  }

  @Get(':id/confirm')
  @UseFilters(ElicitationPageFilter)
  async confirmPage(@Param('id') id: string, @Req() req: unknown, @Res({ passthrough: true }) res: PageResponse) {
    const record = await this.openPending(id, 'confirm', req, res);
    if (!record) return '';
    return this.form(res, 200, 'confirm', record, this.confirmContext(record));
  }

  @Post(':id/confirm')
  @UseFilters(ElicitationPageFilter)
  async submitConfirm(@Param('id') id: string, @Body() body: FormBody, @Req() req: unknown, @Res({ passthrough: true }) res: PageResponse) {
    const record = await this.openPost(id, 'confirm', req, body);
    const dto = plainToInstance(ConfirmSubmissionDto, { action: body?.action });
    if ((await validate(dto)).length > 0) {
      return this.form(res, 400, 'confirm', record, this.confirmContext(record), 'Choose confirm or cancel.');
    }
    if (dto.action === 'cancel') return this.finished(res, record, await this.service.decline(id), 'You declined the request.');
    return this.finished(res, record, await this.service.complete(id, { confirmed: true }), 'Thank you. Your confirmation was received.');
  }

  /** The hosted form (`kind: 'form'`): the record's schema as an HTML form, pre-filled with its defaults. */
  @Get(':id/form')
  @UseFilters(ElicitationPageFilter)
  async formPage(@Param('id') id: string, @Req() req: unknown, @Res({ passthrough: true }) res: PageResponse) {
    const record = await this.openPending(id, 'form', req, res);
    if (!record) return '';
    const plan = formPlanOf(record.metadata);
    return this.hostedForm(res, 200, record, plan, initialInput(plan));
  }

  /**
   * A hosted form post: `action=cancel` declines; otherwise the post is read into typed content and checked
   * with the form's compiled validator. Valid: completes with the content (defaults applied). Invalid: 400
   * with the form again (messages next to their fields, the input kept, secrets never), counted per
   * elicitation; the `limits.maxFormAttempts`-th invalid post declines the elicitation (a 400 page that says so).
   */
  @Post(':id/form')
  @UseFilters(ElicitationPageFilter)
  async submitHostedForm(
    @Param('id') id: string,
    @Body() body: FormBody,
    @Req() req: unknown,
    @Res({ passthrough: true }) res: PageResponse,
  ) {
    const record = await this.openPost(id, 'form', req, body);
    if (body?.action === 'cancel') return this.finished(res, record, await this.service.decline(id), 'You declined the request.');
    const plan = formPlanOf(record.metadata);
    const { content, kept } = readSubmission(plan, body ?? {});
    const result = plan.validate(content);
    if (result.ok)
      return this.finished(res, record, await this.service.complete(id, result.value), 'Thank you. Your answers were received.');
    // One window that spans the record's whole life, the same on every instance: the stores align fixed
    // windows to multiples of windowMs, so a window of the record's lifetime read at its expiry never
    // rolls over (and is forgotten after expiry), whereas "the time left" would start a new count each post.
    const lifetime = Math.max(record.expiresAt - record.createdAt, 1);
    const { count } = await this.store.hit(`form-attempts:${id}`, lifetime, record.expiresAt);
    const max = this.options.limits.maxFormAttempts;
    if (count >= max) {
      const declined = await this.service.decline(id);
      // Finished meanwhile (answered in another tab, expired): the usual 409/410 page.
      if (!declined.ok) return this.finished(res, record, declined, '');
      return this.page(res, 400, 'error', {
        heading: 'Too many invalid attempts',
        text: `This request was declined after ${max} invalid attempt${max === 1 ? '' : 's'}. Nothing was saved. If you still want to answer, ask the assistant again.`,
        statusCode: 400,
      });
    }
    const left = max - count;
    const summary =
      `Check the ${result.issues.length === 1 ? 'field' : `${result.issues.length} fields`} marked below. ` +
      `After ${left} more invalid attempt${left === 1 ? '' : 's'} this request will be declined.`;
    return this.hostedForm(res, 400, record, plan, kept, result.issues, summary);
  }

  /**
   * An external elicitation: after the same checks as every page (id, user, expiry, still pending), the
   * browser is sent on to the third-party URL the elicitation was created with (checked against the
   * external URL policy at creation). Your callback route completes it.
   */
  @Get(':id/external')
  @UseFilters(ElicitationPageFilter)
  async externalPage(@Param('id') id: string, @Req() req: unknown, @Res({ passthrough: true }) res: PageResponse) {
    const record = await this.openPending(id, 'external', req, res);
    if (!record) return '';
    this.security.applyHeaders(res);
    res.status(303);
    res.header('Location', String(record.metadata.targetUrl));
    return '';
  }

  /**
   * Loads the record behind a page and checks, in this order: the id (404, before any store access), the
   * page kind (404), the browser user (401, or 303 to `loginUrl` on a GET; 403 for another user), expiry
   * (410), and that it is still pending (409). Resolves `undefined` when it answered with a redirect.
   */
  private async openPending(id: string, kind: ElicitationKind, req: unknown, res?: PageResponse): Promise<ElicitationRecord | undefined> {
    if (!this.service.isValidId(id)) throw new ElicitationNotFoundException();
    const record = await this.service.getRecord(id);
    if (!record || record.kind !== kind) throw new ElicitationNotFoundException();
    try {
      await this.checkBrowserUser(record, req);
    } catch (error) {
      if (!(error instanceof SignInRedirect) || !res) throw error;
      res.status(303);
      res.header('Location', error.location);
      res.header('Cache-Control', 'no-store');
      return undefined;
    }
    if (record.status === 'expired') throw new ElicitationExpiredException();
    if (record.status !== 'pending') throw new ElicitationFinishedException(record.status);
    return record;
  }

  /**
   * A form post: the size cap (413) and the request's origin and CSRF token (403) are checked before the
   * store is touched, then the same checks as `openPending`.
   */
  private async openPost(id: string, kind: ElicitationKind, req: unknown, body: FormBody): Promise<ElicitationRecord> {
    if (!this.service.isValidId(id)) throw new ElicitationNotFoundException();
    const declared = Number(raw<{ headers: Record<string, string | undefined> }>(req as never).headers['content-length']);
    const parsed = parsedBodyBytes(body);
    if (declared > this.options.limits.maxBodyBytes || parsed > this.options.limits.maxBodyBytes) {
      throw new PayloadTooLargeException('The form sent too much data. Nothing was saved.');
    }
    if (!this.security.verifyPost(id, req, body?._csrf)) {
      throw new ForbiddenException(
        'This form has expired or was not sent from this site. Nothing was saved. Reload the page and try again.',
      );
    }
    return (await this.openPending(id, kind, req))!;
  }

  private async checkBrowserUser(record: ElicitationRecord, req: unknown): Promise<void> {
    const resolve = this.options.resolvePageUser;
    if (!resolve) return;
    const user = await resolve(req);
    if (user === undefined || user === null || user === '') {
      const method = raw<{ method?: string }>(req as never).method;
      const login = method === 'GET' ? this.security.loginRedirect(record.id, record.kind) : undefined;
      if (login) throw new SignInRedirect(login);
      throw new UnauthorizedException('Please sign in to this application, then open the link again.');
    }
    if (user !== record.userId) {
      throw new ForbiddenException(
        'This request was made for a different account. Sign in with the account that asked, or ask the assistant again.',
      );
    }
  }

  private finished(res: PageResponse, record: ElicitationRecord, result: TransitionResult, text: string): string {
    if (result.ok) return this.page(res, 200, 'done', { heading: 'Done', text, message: record.message });
    if (result.reason === 'not-found') throw new ElicitationNotFoundException();
    if (result.reason === 'expired' || result.record.status === 'expired') throw new ElicitationExpiredException();
    throw new ElicitationFinishedException(result.record.status);
  }

  private confirmContext(record: ElicitationRecord): Record<string, unknown> {
    const m = record.metadata as Record<string, string | undefined>;
    return {
      heading: m.title || 'Please confirm',
      warning: m.warning || null,
      confirmLabel: m.confirmLabel || 'Confirm',
      cancelLabel: m.cancelLabel || 'Cancel',
    };
  }

  /** A page with a form: a fresh CSRF token (and its cookie) for every render. */
  private form(
    res: PageResponse,
    status: number,
    name: 'api-key' | 'confirm',
    record: ElicitationRecord,
    context: Record<string, unknown>,
    error: string | null = null,
  ): string {
    const csrf = this.security.issueCsrf(record.id, record.expiresAt, res);
    return this.page(res, status, name, {
      heading: name === 'api-key' ? 'An API key is needed' : 'Please confirm',
      message: record.message,
      maxLength: MAX_API_KEY_LENGTH,
      error,
      csrf,
      ...context,
    });
  }

  /** The hosted form page: a fresh CSRF token, the prepared fields, and the summary of a failed post. */
  private hostedForm(
    res: PageResponse,
    status: number,
    record: ElicitationRecord,
    plan: FormPlan,
    input: KeptInput,
    issues: FieldIssue[] = [],
    error: string | null = null,
  ): string {
    const csrf = this.security.issueCsrf(record.id, record.expiresAt, res);
    const fields = fieldViews(plan, input, issues);
    return this.page(res, status, 'form', {
      heading: 'Please fill in this form',
      message: record.message,
      fields,
      hasRequired: fields.some((f) => f.required),
      error,
      csrf,
    });
  }

  private page(res: PageResponse, status: number, name: TemplateName, context: Record<string, unknown> & { heading: string }): string {
    const nonce = this.security.applyHeaders(res);
    res.status(status);
    return this.renderer.render(name, { ...context, nonce });
  }
}

/** Creates the controller class mounted under `routePrefix` (one class per prefix, so modules can differ). */
export function createElicitationController(routePrefix: string): Type<ElicitationController> {
  class MountedElicitationController extends ElicitationController {}
  Controller(routePrefix)(MountedElicitationController);
  return MountedElicitationController;
}
