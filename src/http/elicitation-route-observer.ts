import type { ServerResponse } from 'node:http';
import {
  type CanActivate,
  type ExecutionContext,
  ForbiddenException,
  Injectable,
  PayloadTooLargeException,
  UnauthorizedException,
} from '@nestjs/common';
import { parseElicitationId, type ElicitationId } from '../core/elicitation-id.js';
import { isElicitationKind } from '../core/elicitation-kinds.js';
import type { ElicitationRecord } from '../core/elicitation.types.js';
import { ElicitationCsrfException } from './exceptions/elicitation-csrf.exception.js';
import { ElicitationExpiredException } from './exceptions/elicitation-expired.exception.js';
import { ElicitationFinishedException } from './exceptions/elicitation-finished.exception.js';
import { ElicitationInputError } from '../errors/elicitation-input.error.js';
import { ElicitationNotFoundException } from './exceptions/elicitation-not-found.exception.js';
import { ElicitationThrottledException } from './exceptions/elicitation-throttled.exception.js';
import { ElicitationAudit } from '../observability/elicitation-audit.js';
import { ElicitationTelemetry, NO_SPAN, type TelemetrySpan } from '../observability/elicitation-telemetry.js';
import { requestInfoOf, runInRequest, type ElicitationRequestInfo, type RequestInfoSource } from '../observability/request-context.js';
import { prefersJson } from './inbox-view.js';
import { raw, type NodeRequestPart } from './page-http.js';

/** Why a page (or the status route) refused a request, as the audit log's `reason` says it. */
export type PageRefusal = 'identity' | 'csrf' | 'expired' | 'finished' | 'not-found' | 'too-large' | 'throttled' | 'passkey';

/** What the module observes of one request to its routes, from the routes' guard to the last byte of the answer. */
interface RouteObservation {
  /** The route's page (`api-key`, `confirm`, `form`, `external`) or `status`. */
  page: string;
  /** The client's address and agent: read only when the handler runs in context (`inContext`). */
  info?: ElicitationRequestInfo;
  span: TelemetrySpan;
  /** Whether the handler runs in the request's context (`InRouteContext`): only with an audit log or a recorded span. */
  inContext: boolean;
  /** The id in the path, when it has the shape of one (nothing else of the path is recorded): checked here, once. */
  elicitationId?: ElicitationId;
  record?: Pick<ElicitationRecord, 'id' | 'kind' | 'userId'>;
  /** A page GET passed every check (`ElicitationPageAccess.open`). */
  opened?: boolean;
  refusal?: PageRefusal;
}

/** The observations of the requests being served, by their Node request. */
const observations = new WeakMap<object, RouteObservation>();

/** The observer and observation of each response being answered (one shared `close` listener, no closure per request). */
const answering = new WeakMap<ServerResponse, { observer: ElicitationRouteObserver; observation: RouteObservation }>();

/** The `close` listener of every observed response. */
function onAnswered(this: ServerResponse): void {
  const entry = answering.get(this);
  if (!entry) return;
  answering.delete(this);
  entry.observer.answered(entry.observation, this.statusCode);
}

/**
 * The `:id` of a request to the routes, checked once per request: by this observer, the first check of the routes' guard, or here
 * for a request it did not see (`undefined`: not of an id's shape).
 */
export function routeElicitationId(req: NodeRequestPart & { raw?: NodeRequestPart }, id: string): ElicitationId | undefined {
  const observation = observations.get(raw(req));
  return observation ? observation.elicitationId : parseElicitationId(id);
}

/** The record a page request concerns, once the page's checks loaded it (for the audit log). */
export function observePageRecord(req: NodeRequestPart & { raw?: NodeRequestPart }, record: ElicitationRecord): void {
  const observation = observations.get(raw(req));
  if (observation) observation.record = { id: record.id, kind: record.kind, userId: record.userId };
}

/** A page GET passed every check: the page is shown (or the browser sent on). */
export function observePageOpened(req: NodeRequestPart & { raw?: NodeRequestPart }): void {
  const observation = observations.get(raw(req));
  if (observation) observation.opened = true;
}

/** A request to the routes is refused for `reason` (an exception's, `refusalOf`; or a sign-in redirect's). */
export function observeRefusal(req: NodeRequestPart & { raw?: NodeRequestPart }, reason: PageRefusal | undefined): void {
  const observation = observations.get(raw(req));
  if (observation && reason) observation.refusal = reason;
}

/** The refusal an exception of the routes stands for, or `undefined` (a failure, not a refusal: 500, 503). */
export function refusalOf(exception: unknown): PageRefusal | undefined {
  if (exception instanceof ElicitationThrottledException) return 'throttled';
  if (exception instanceof ElicitationCsrfException) return 'csrf';
  if (exception instanceof UnauthorizedException || exception instanceof ForbiddenException) return 'identity';
  if (exception instanceof ElicitationExpiredException) return 'expired';
  if (exception instanceof ElicitationFinishedException) return 'finished';
  if (exception instanceof ElicitationNotFoundException) return 'not-found';
  if (exception instanceof PayloadTooLargeException) return 'too-large';
  if (exception instanceof ElicitationInputError && exception.field === 'data') return 'too-large';
  return undefined;
}

/**
 * The first check of the module's routes (`ElicitationRoutesGuard` runs it before the throttle, so a 429 is seen too): notes the request (its page,
 * the client's address and agent), starts the page's span (`elicitation.page.render` for a GET,
 * `elicitation.page.submit` for a post; none for the status route and the inbox's JSON, which are polled) and, when the answer is sent, counts
 * `elicitation.page.requests {page, status}`, ends the span and writes the audit record (`page.opened`,
 * `page.refused`). Never refuses anything itself.
 */
@Injectable()
export class ElicitationRouteObserver implements CanActivate {
  constructor(
    private readonly telemetry: ElicitationTelemetry,
    private readonly audit: ElicitationAudit,
  ) {}

  canActivate(context: ExecutionContext): boolean {
    const http = context.switchToHttp();
    const req = http.getRequest<NodeRequestPart & RequestInfoSource & { raw?: NodeRequestPart; params?: Record<string, unknown> }>();
    const node = raw(req);
    if (observations.has(node)) return true;
    const page = pageOf(context.getHandler());
    const elicitationId = parseElicitationId(req.params?.id);
    const submit = node.method === 'POST';
    // The status route and the inbox's JSON are polled: a span per poll would drown the pages' own.
    const span =
      page === 'status' || (page === 'inbox' && prefersJson(node.headers.accept))
        ? NO_SPAN
        : this.telemetry.startSpan(submit ? 'elicitation.page.submit' : 'elicitation.page.render', { 'elicitation.page': page });
    const inContext = this.audit.enabled || span !== NO_SPAN;
    const observation: RouteObservation = {
      page,
      span,
      inContext,
      ...(inContext && { info: requestInfoOf(req) }),
      ...(elicitationId && { elicitationId }),
    };
    observations.set(node, observation);
    // Nothing to do when the answer is sent without metrics, a span or an audit log: no listener then.
    if (!inContext && !this.telemetry.counting) return true;
    const res = http.getResponse<{ raw?: ServerResponse } & Partial<ServerResponse>>();
    const nodeRes = (res.raw ?? res) as ServerResponse;
    answering.set(nodeRes, { observer: this, observation });
    nodeRes.on('close', onAnswered);
    return true;
  }

  /** Counts, ends the span and audits `observation`, once its answer is sent with `status`. */
  answered(observation: RouteObservation, status: number): void {
    this.telemetry.pageRequest(observation.page, status);
    observation.span.setAttribute('http.response.status_code', status);
    observation.span.end(status >= 500 ? { message: String(status) } : undefined);
    if (!this.audit.enabled) return;
    const event = observation.refusal ? 'page.refused' : observation.opened && status < 400 ? 'page.opened' : undefined;
    if (!event) return;
    const { record, page } = observation;
    this.audit.record({
      event,
      elicitationId: record?.id ?? observation.elicitationId,
      kind: record?.kind ?? (isElicitationKind(page) ? page : undefined),
      userId: record?.userId,
      ...observation.info,
      ...(observation.refusal && { reason: observation.refusal }),
      status,
    });
  }
}

/**
 * Runs the decorated route handler with its request behind what the service does meanwhile (the audit log's client
 * address and agent) and the page's span as the active one (the service's spans are its children). Costs nothing
 * when there is neither an audit log nor a recorded span: the handler is called as it is, and the process never
 * pays for an `AsyncLocalStorage`. The handler takes its request with `@Req()` (found among its arguments).
 * Put it below the route decorator (`@Get`, `@Post`), which then describes the wrapped handler.
 */
export function InRouteContext(): MethodDecorator {
  return (_target, _key, descriptor) => {
    const handler = descriptor.value as unknown as (...args: unknown[]) => unknown;
    const wrapped = function (this: unknown, ...args: unknown[]): unknown {
      const observation = observationAmong(args);
      if (!observation?.inContext) return handler.apply(this, args);
      return runInRequest(observation.info ?? {}, () => observation.span.run(() => handler.apply(this, args)));
    };
    descriptor.value = wrapped as unknown as typeof descriptor.value;
  };
}

/** The observation of the request among a handler's arguments, if one is. */
function observationAmong(args: unknown[]): RouteObservation | undefined {
  for (const arg of args) {
    const observation = arg !== null && typeof arg === 'object' ? observations.get(raw(arg as { raw?: object })) : undefined;
    if (observation) return observation;
  }
  return undefined;
}

/** The pages of the route handlers seen so far. */
const pages = new WeakMap<object, string>();

/** The page of a route handler: the last segment of its path (`:id/api-key` → `api-key`, `:id/status` → `status`). */
function pageOf(handler: object): string {
  let page = pages.get(handler);
  if (page === undefined) {
    // Nest's @Get/@Post keep the route's path under the 'path' metadata key of the handler.
    const path: unknown = Reflect.getMetadata('path', handler);
    page = (typeof path === 'string' ? path.split('/').pop() : undefined) || 'unknown';
    pages.set(handler, page);
  }
  return page;
}
