import { Body, Get, Param, Post, Req, Res } from '@nestjs/common';
import { MAX_API_KEY_LENGTH } from '../options/elicitation.constants.js';
import { InjectPageOptions, type ElicitationPageOptions } from '../options/page-options.js';
import { idOf } from '../core/elicitation-id.js';
import { ElicitationRecords } from '../lifecycle/elicitation-records.js';
import { ElicitationApprovals } from '../lifecycle/elicitation-approvals.js';
import { approvalActionView, approvalPageContext } from './approval-view.js';
import type { ElicitationRecord, TransitionResult } from '../core/elicitation.types.js';
import type { FieldIssue } from '../errors/elicitation-validation.error.js';
import { recheckHostedAnswer } from '../forms/zod-hosted-checks.js';
import { PageRoutes } from './elicitation-routes.decorator.js';
import { InRouteContext } from './elicitation-route-observer.js';
import { formPlanOf, readSubmission, type FormPlan, type KeptInput } from './form-plan.js';
import { fieldViews, initialInput } from './form-view.js';
import { ElicitationPageAccess, type FormBody } from './page-access.js';
import type { PageRequest, PageResponse } from './page-http.js';
import type { PageMessages } from '../messages/page-messages.js';
import { PageSecurity } from './page-security.js';
import { readApiKeySubmission, readConfirmSubmission } from './page-submissions.js';
import { displayText } from '../security/display-text.js';
import { PageResponder } from './page-responder.js';
import type { ConfirmPasskeyView, PageContexts } from './page-contexts.js';
import { PasskeyStep } from './passkey-step.js';

/**
 * The browser pages (`/:id/api-key`, `/:id/confirm`, `/:id/form`, `/:id/external`), throttled per IP, every
 * failure rendered as an HTML page by `ElicitationPageFilter` (503 while the app shuts down:
 * `ElicitationDrainingGuard`). Who may open a page is `ElicitationPageAccess`'s call; mounted under the
 * `routePrefix` by `createElicitationControllers`.
 */
@PageRoutes()
export class ElicitationPagesController {
  constructor(
    private readonly records: ElicitationRecords,
    private readonly approvals: ElicitationApprovals,
    private readonly access: ElicitationPageAccess,
    private readonly answers: PageResponder,
    private readonly security: PageSecurity,
    private readonly passkey: PasskeyStep,
    @InjectPageOptions() private readonly options: ElicitationPageOptions,
  ) {}

  @Get(':id/api-key')
  @InRouteContext()
  async apiKeyPage(@Param('id') id: string, @Req() req: PageRequest, @Res({ passthrough: true }) res: PageResponse): Promise<string> {
    const record = await this.access.open(id, 'api-key', req, res);
    if (!record) return '';
    return this.keyOrConfirmPage(req, res, 200, 'api-key', record);
  }

  @Post(':id/api-key')
  @InRouteContext()
  async submitApiKey(
    @Param('id') id: string,
    @Body() body: FormBody,
    @Req() req: PageRequest,
    @Res({ passthrough: true }) res: PageResponse,
  ): Promise<string> {
    const record = await this.access.openPost(id, 'api-key', req, body);
    const { messages } = this.answers.localeOf(req);
    if (body?.action === 'cancel') return this.finished(req, res, record, await this.records.decline(idOf(record)), messages.done.declined);
    const submitted = readApiKeySubmission(body, messages);
    if (!submitted.ok) return this.keyOrConfirmPage(req, res, 400, 'api-key', record, submitted.message);
    return this.finished(req, res, record, await this.records.complete(idOf(record), submitted.value), messages.done.apiKeyReceived);
  }

  @Get(':id/confirm')
  @InRouteContext()
  async confirmPage(@Param('id') id: string, @Req() req: PageRequest, @Res({ passthrough: true }) res: PageResponse): Promise<string> {
    const record = await this.access.open(id, 'confirm', req, res);
    if (!record) return '';
    return this.keyOrConfirmPage(
      req,
      res,
      200,
      'confirm',
      record,
      null,
      await this.passkey.view(record, this.answers.localeOf(req).messages),
    );
  }

  @Post(':id/confirm')
  @InRouteContext()
  async submitConfirm(
    @Param('id') id: string,
    @Body() body: FormBody,
    @Req() req: PageRequest,
    @Res({ passthrough: true }) res: PageResponse,
  ): Promise<string> {
    const record = await this.access.openPost(id, 'confirm', req, body);
    const { messages } = this.answers.localeOf(req);
    const submitted = readConfirmSubmission(body, messages);
    if (!submitted.ok) return this.keyOrConfirmPage(req, res, 400, 'confirm', record, submitted.message);
    if (submitted.value.action === 'cancel')
      return this.finished(req, res, record, await this.records.decline(idOf(record)), messages.done.declined);
    // A page that asks for a passkey takes the confirmation only with its signature, kept as the decision's receipt.
    const step = await this.passkey.verify(record, body, req, messages);
    if (typeof step === 'object' && 'refused' in step) {
      const view = await this.passkey.view(record, messages);
      return this.keyOrConfirmPage(req, res, step.refused.status, 'confirm', record, step.refused.text, view);
    }
    const answer = typeof step === 'object' ? { confirmed: true, receipt: { ...step.signed } } : { confirmed: true };
    return this.finished(req, res, record, await this.records.complete(idOf(record), answer), messages.done.confirmationReceived);
  }

  /**
   * The requester's page of an approval (`kind: 'approval'`): where it stands, who decided and who has not, and what
   * is approved. No form: each approver decides on a confirm page of their own.
   */
  @Get(':id/approval')
  @InRouteContext()
  async approvalPage(@Param('id') id: string, @Req() req: PageRequest, @Res({ passthrough: true }) res: PageResponse): Promise<string> {
    const opened = await this.access.open(id, 'approval', req, res);
    if (!opened) return '';
    const record = await this.approvals.settle(opened);
    const { messages } = this.answers.localeOf(req);
    const context = approvalPageContext(record, await this.approvals.tally(record), messages);
    return this.answers.page(req, res, 200, 'approval', context, { record });
  }

  /** The hosted form (`kind: 'form'`): the record's schema as an HTML form, pre-filled with its defaults. */
  @Get(':id/form')
  @InRouteContext()
  async formPage(@Param('id') id: string, @Req() req: PageRequest, @Res({ passthrough: true }) res: PageResponse): Promise<string> {
    const record = await this.access.open(id, 'form', req, res);
    if (!record) return '';
    const plan = formPlanOf(record.metadata);
    return this.hostedForm(req, res, 200, record, plan, initialInput(plan));
  }

  /**
   * A hosted form post: `action=cancel` declines; otherwise the post is read into typed content and checked
   * with the form's compiled validator. Valid: completes with the content (defaults applied). Invalid: 400
   * with the form again (messages next to their fields, the input kept, secrets never), counted by the
   * service; the `limits.maxFormAttempts`-th invalid post declines the elicitation (a 400 page that says so).
   */
  @Post(':id/form')
  @InRouteContext()
  async submitHostedForm(
    @Param('id') id: string,
    @Body() body: FormBody,
    @Req() req: PageRequest,
    @Res({ passthrough: true }) res: PageResponse,
  ): Promise<string> {
    const record = await this.access.openPost(id, 'form', req, body);
    const { messages } = this.answers.localeOf(req);
    if (body?.action === 'cancel') return this.finished(req, res, record, await this.records.decline(idOf(record)), messages.done.declined);
    const plan = formPlanOf(record.metadata);
    const { content, kept } = readSubmission(plan, body ?? {});
    const result = recheckHostedAnswer(record.id, plan.validate(content));
    if (result.ok)
      return this.finished(req, res, record, await this.records.complete(idOf(record), result.value), messages.done.answersReceived);
    const { attemptsLeft, declined } = await this.records.recordInvalidFormAttempt(record);
    if (!declined) {
      const summary = messages.form.summary(result.issues.length, attemptsLeft);
      return this.hostedForm(req, res, 400, record, plan, kept, result.issues, summary);
    }
    // Finished meanwhile (answered in another tab, expired): the usual 409/410 page.
    if (!declined.ok) throw this.access.notDone(declined);
    const statusCode = 400;
    return this.answers.page(req, res, statusCode, 'error', {
      heading: messages.headings.tooManyAttempts,
      text: messages.form.declinedAfter(this.options.limits.maxFormAttempts),
      statusCode,
      statusLine: messages.errors.statusLine(statusCode),
    });
  }

  /**
   * An external elicitation: after the same checks as every page (id, user, expiry, still pending), the
   * browser is sent on to the third-party URL the elicitation was created with (checked against the
   * external URL policy at creation). Your callback route completes it.
   */
  @Get(':id/external')
  @InRouteContext()
  async externalPage(@Param('id') id: string, @Req() req: PageRequest, @Res({ passthrough: true }) res: PageResponse): Promise<string> {
    const record = await this.access.open(id, 'external', req, res);
    if (!record) return '';
    this.security.applyHeaders(res);
    res.status(303);
    res.header('Location', String(record.metadata.targetUrl));
    return '';
  }

  /** The done page of a transition that happened; otherwise its 404/409/410 page. */
  private finished(req: PageRequest, res: PageResponse, record: ElicitationRecord, result: TransitionResult, text: string): string {
    return this.answers.done(req, res, record, result, text);
  }

  /** The api-key or confirm page, with a CSRF token for the browser's nonce (kept from `req`'s cookie, or fresh). */
  private keyOrConfirmPage(
    req: PageRequest,
    res: PageResponse,
    status: number,
    name: 'api-key' | 'confirm',
    record: ElicitationRecord,
    error: string | null = null,
    passkey: ConfirmPasskeyView | null = null,
  ): string {
    const csrf = this.security.issueCsrf(record.id, record.expiresAt, res, req);
    const { messages } = this.answers.localeOf(req);
    const context = { message: record.message, maxLength: MAX_API_KEY_LENGTH, error, csrf, labels: messages.labels };
    if (name === 'api-key') return this.answers.page(req, res, status, name, { heading: messages.headings.apiKey, ...context }, { record });
    const action = approvalActionView(record, messages);
    return this.answers.page(
      req,
      res,
      status,
      name,
      { ...context, ...confirmSettings(record, messages, typeof action?.requestedBy === 'string'), action, passkey },
      { record },
    );
  }

  /** The hosted form page: a CSRF token (as on the api-key page), the prepared fields, and the summary of a failed post. */
  private hostedForm(
    req: PageRequest,
    res: PageResponse,
    status: number,
    record: ElicitationRecord,
    plan: FormPlan,
    input: KeptInput,
    issues: FieldIssue[] = [],
    error: string | null = null,
  ): string {
    const csrf = this.security.issueCsrf(record.id, record.expiresAt, res, req);
    const { messages } = this.answers.localeOf(req);
    const fields = fieldViews(plan, input, messages, issues);
    return this.answers.page(
      req,
      res,
      status,
      'form',
      {
        heading: messages.headings.form,
        message: record.message,
        fields,
        hasRequired: fields.some((f) => f.required),
        error,
        csrf,
        labels: messages.labels,
      },
      { record },
    );
  }
}

/** The confirm page's settings from the record's metadata (optional strings, checked at creation), or their defaults. */
function confirmSettings(
  record: ElicitationRecord,
  messages: PageMessages,
  approval: boolean,
): Pick<PageContexts['confirm'], 'heading' | 'warning' | 'confirmLabel' | 'cancelLabel'> {
  // A text that shows nothing once made safe to show (only controls, say) counts as absent: no empty button.
  const text = (key: string): string | undefined => {
    const value = record.metadata[key];
    return typeof value === 'string' && displayText(value, 'line') !== '' ? value : undefined;
  };
  // An approver's page: the catalog's words (the approval's own texts are the tool's message and details).
  if (approval)
    return {
      heading: messages.approval.heading,
      warning: null,
      confirmLabel: messages.approval.approve,
      cancelLabel: messages.approval.reject,
    };
  return {
    heading: text('title') ?? messages.headings.confirm,
    warning: text('warning') ?? null,
    confirmLabel: text('confirmLabel') ?? messages.confirm.confirmLabel,
    cancelLabel: text('cancelLabel') ?? messages.confirm.cancelLabel,
  };
}
