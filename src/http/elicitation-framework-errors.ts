import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import {
  type ArgumentsHost,
  BadRequestException,
  type ExceptionFilter,
  HttpException,
  Injectable,
  NotFoundException,
  type OnModuleInit,
  PayloadTooLargeException,
  UnsupportedMediaTypeException,
} from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { InjectPageOptions, type ElicitationPageOptions } from '../options/page-options.js';
import { ElicitationNotFoundException } from './exceptions/elicitation-not-found.exception.js';
import { PAGE_MESSAGES } from '../messages/default-messages.js';
import { pageError, withPageText } from './exceptions/page-text.js';
import { ElicitationPageFilter } from './elicitation-page.filter.js';
import { ElicitationStatusFilter } from './elicitation-status.filter.js';
import { raw, type PageResponse } from './page-http.js';

/**
 * The longest path segment a route parameter may hold on Fastify (its router's default `maxParamLength`); a
 * longer one is answered by the router itself (414, echoing the path). No id or page name comes near it.
 */
const LONGEST_ROUTABLE_SEGMENT = 100;

/** Which of the module's answers a path under its prefix gets: the status route's JSON, or a page. */
type RouteKind = 'status' | 'page';

/** Nest's exception-layer handler (`(error, req, res, next)` on Express, `(error, request, reply)` on Fastify). */
type ErrorHandler = (error: unknown, req: unknown, res: unknown, next?: unknown) => unknown;

/** Nest's handler for requests no route matched (`(req, res, next)` on Express, `(request, reply)` on Fastify). */
type NotFoundHandler = (req: unknown, res: unknown, next?: unknown) => unknown;

/** The two handlers Nest gives the HTTP adapter after the modules' `onModuleInit` (`registerRouterHooks`). */
interface RouterHooks {
  setErrorHandler?(handler: ErrorHandler, ...rest: unknown[]): unknown;
  setNotFoundHandler?(handler: NotFoundHandler, prefix?: string, ...rest: unknown[]): unknown;
  getHttpServer?(): unknown;
}

/** What is read of a request on either adapter: Express's own URL before its routers rewrite `url`, or the Node one. */
interface RoutedRequest {
  readonly originalUrl?: string;
  readonly url?: string;
  readonly raw?: { readonly url?: string };
}

/** A Node response as a `PageResponse`, for the answers given before any framework saw the request. */
function nodeReply(res: ServerResponse): PageResponse {
  return {
    status: (code: number) => (res.statusCode = code),
    header: (name: string, value: string) => res.setHeader(name, value),
    removeHeader: (name: string) => res.removeHeader(name),
    send: (body: string) => {
      res.setHeader('Content-Length', Buffer.byteLength(body));
      res.end(body);
    },
  };
}

/** An HTTP `ArgumentsHost`, for handing a request answered outside Nest's router to one of the module's filters. */
function httpHost(req: unknown, res: unknown): ArgumentsHost {
  const args = [req, res];
  const http = { getRequest: () => req, getResponse: () => res, getNext: () => undefined };
  const notHttp = (): never => {
    throw new Error('An HTTP request only');
  };
  const host = { getArgs: () => args, getArgByIndex: (i: number) => args[i], getType: () => 'http', switchToHttp: () => http };
  return { ...host, switchToRpc: notHttp, switchToWs: notHttp } as ArgumentsHost;
}

/**
 * The path of a request target: an absolute-form target (`GET http://host/elicit/...`) by its path, without query
 * or fragment, as sent (escapes are checked by `unroutable`).
 */
function pathOf(target: string): string {
  const path = target.replace(/^[a-z][a-z0-9+.-]*:\/\/[^/]*/i, '');
  const end = path.search(/[?#]/);
  return end < 0 ? path : path.slice(0, end);
}

/** A slash however it is spelled: `/` or an encoded one (`%2F`, in a lower-cased path). */
const SLASH = '(?:/|%2f)';

/**
 * A lower-case mount path (`/api/elicit`) as a pattern matching it at the start of a lower-cased path, each slash
 * spelled in any way and repeated (`//elicit`, `/elicit%2F`, `/api//elicit`).
 */
function mountPattern(mount: string): RegExp {
  const segments = mount.split('/').map((segment) => segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  return new RegExp(`^${segments.join(`${SLASH}+`)}(?=${SLASH}|$)`);
}

/** The status route below the prefix (`/<id>/status`), its slashes as the router reads them, or spelled `%2F`. */
const STATUS_REST = /^\/[^/]*\/status\/?$/;

/** The HTTP status a framework error carries (an HttpException's, or the `status`/`statusCode` of http-errors and Fastify's errors). */
function statusOf(error: unknown): number | undefined {
  if (error instanceof HttpException) return error.getStatus();
  if (typeof error !== 'object' || error === null) return undefined;
  const { status, statusCode } = error as { status?: unknown; statusCode?: unknown };
  const code = typeof status === 'number' ? status : statusCode;
  return typeof code === 'number' && Number.isInteger(code) && code >= 400 && code <= 599 ? code : undefined;
}

/**
 * Answers, on the module's own routes only, what the framework answers before any of the module's filters can:
 * a broken percent-escape in the path, a body the app's parser refuses (over its limit, an unsupported
 * charset, malformed JSON), a page name no route has, a method no route takes. Each gets the module's answer
 * (the error page with the pages' headers, or the status route's JSON with its headers) and a text of the
 * module's own, never the framework's message, which echoes the raw path or parameter.
 *
 * Two hooks, installed in `onModuleInit`, for both adapters:
 * - on the Node server, before Express or Fastify sees the request: a path under the prefix that no router can
 *   take apart (a percent-escape that does not decode, a segment longer than a route parameter may be) is
 *   answered at once (400, or 404). Fastify answers those from its router, past every hook and handler Nest
 *   or the module could set.
 * - on the HTTP adapter: Nest installs its exception-layer and not-found handlers after the modules' init hooks;
 *   each is wrapped so that a request under the prefix gets the module's answer, and any other request Nest's
 *   handler as before (the host app's routes, their filters and their errors are untouched).
 *
 * The prefix is matched in any letter case, with its slashes spelled in any way (`%2F`, `%2f`, repeated: no route
 * takes such a path, so it is the module's 404, never the framework's echoing it), under the app's global prefix
 * (learnt from Nest's call) and under `baseUrl`'s path (a `RouterModule` path); a path outside it is never touched. Provided only when the
 * module mounts its routes (`controllers: true`).
 */
@Injectable()
export class ElicitationFrameworkErrors implements OnModuleInit {
  private readonly routePrefix: string;
  private readonly basePath: string;
  /** The lower-case paths the routes are served under (e.g. `/elicit`, `/api/elicit`), as `mountPattern`s. */
  private mounts: RegExp[];

  constructor(
    private readonly adapterHost: HttpAdapterHost,
    @InjectPageOptions() options: ElicitationPageOptions,
    private readonly pages: ElicitationPageFilter,
    private readonly status: ElicitationStatusFilter,
  ) {
    this.routePrefix = options.routePrefix;
    this.basePath = new URL(options.baseUrl).pathname.replace(/\/+$/, '');
    this.mounts = this.mountsUnder('');
  }

  onModuleInit(): void {
    const adapter = this.adapterHost.httpAdapter as RouterHooks | undefined;
    if (!adapter) return;
    const server = adapter.getHttpServer?.() as Server | undefined;
    if (server && typeof server.listeners === 'function') this.guardServer(server);
    this.wrapRouterHooks(adapter);
  }

  /** The mount paths with this global prefix (none: ''). */
  private mountsUnder(globalPrefix: string): RegExp[] {
    const prefix = globalPrefix.replace(/^\/+|\/+$/g, '');
    const mounts = [prefix ? `/${prefix}/${this.routePrefix}` : `/${this.routePrefix}`, `${this.basePath}/${this.routePrefix}`];
    return [...new Set(mounts.map((m) => m.toLowerCase()))].map(mountPattern);
  }

  /**
   * Which answer a request target under the prefix gets, and the path below the prefix; undefined outside it. The
   * prefix is read as a person would: its slashes percent-encoded (`%2F`, `%2f`) or repeated (`//elicit/...`) are
   * slashes (`mountPattern`), so that such a spelling, which no route takes, still gets the module's answer.
   */
  private routeOf(target: string | undefined): { kind: RouteKind; rest: string } | undefined {
    if (!target) return undefined;
    const lower = pathOf(target).toLowerCase();
    const mount = this.mounts.map((m) => m.exec(lower)).find((match) => match !== null);
    if (!mount) return undefined;
    // The rest as sent: an encoded slash inside a segment is part of it for the router (`/elicit/a%2Fb/status`).
    const rest = lower.slice(mount[0].length);
    const status = STATUS_REST.test(rest) || STATUS_REST.test(rest.replace(/%2f/g, '/'));
    return { kind: status ? 'status' : 'page', rest };
  }

  /** The route of a request as an adapter's handler receives it (Express's request, Fastify's). */
  private routeOfRequest(req: unknown): { kind: RouteKind; rest: string } | undefined {
    const request = req as RoutedRequest;
    return this.routeOf(request.originalUrl ?? raw(request).url);
  }

  /** Answers, before any framework, a request under the prefix whose path no router can take apart. */
  private guardServer(server: Server): void {
    for (const listener of server.listeners('request') as Array<(req: IncomingMessage, res: ServerResponse) => void>) {
      server.removeListener('request', listener);
      server.on('request', (req: IncomingMessage, res: ServerResponse) => {
        // Only a target with an escape or a long segment can be unroutable: every other request goes straight on.
        const target = req.url ?? '';
        const route = target.includes('%') || target.length > LONGEST_ROUTABLE_SEGMENT ? this.routeOf(target) : undefined;
        const problem = route && this.unroutable(route);
        if (problem) this.answer(route.kind, problem, req, nodeReply(res));
        else listener.call(server, req, res);
      });
    }
  }

  /** Why no router can take this path apart (an exception of the module's), or undefined when one can. */
  private unroutable(route: { kind: RouteKind; rest: string }): HttpException | undefined {
    const segments = route.rest.split('/');
    for (const segment of segments) {
      try {
        decodeURIComponent(segment);
      } catch {
        return pageError(BadRequestException, (m) => m.errors.unreadable);
      }
    }
    // No elicitation has such an id: the same 404 as a malformed id gets from the routes.
    if (segments.some((segment) => segment.length > LONGEST_ROUTABLE_SEGMENT)) return new ElicitationNotFoundException();
    return undefined;
  }

  /** Wraps the exception-layer and not-found handlers Nest is about to give the adapter. */
  private wrapRouterHooks(adapter: RouterHooks): void {
    const setErrorHandler = adapter.setErrorHandler?.bind(adapter);
    const setNotFoundHandler = adapter.setNotFoundHandler?.bind(adapter);
    if (setErrorHandler) {
      adapter.setErrorHandler = (handler, ...rest) => setErrorHandler(this.wrapErrorHandler(handler), ...rest);
    }
    if (setNotFoundHandler) {
      adapter.setNotFoundHandler = (handler, prefix, ...rest) => {
        // Nest hands the global prefix over here: the routes are served under it.
        this.mounts = this.mountsUnder(prefix ?? '');
        return setNotFoundHandler(this.wrapNotFoundHandler(handler), prefix, ...rest);
      };
    }
  }

  private wrapErrorHandler(handler: ErrorHandler): ErrorHandler {
    // Four parameters: Express tells an error handler by its arity.
    return (error, req, res, next) => {
      const route = this.routeOfRequest(req);
      if (!route || this.isSent(res)) return handler(error, req, res, next);
      this.answer(route.kind, this.translate(route.kind, error), req, res);
    };
  }

  private wrapNotFoundHandler(handler: NotFoundHandler): NotFoundHandler {
    return (req, res, next) => {
      const route = this.routeOfRequest(req);
      if (!route || this.isSent(res)) return handler(req, res, next);
      this.answer(route.kind, this.notFound(route.kind), req, res);
    };
  }

  /**
   * The module's exception for an error of the exception layer. The framework's client errors (a broken
   * escape or body: 400, 413, 415; and 404) get the module's text for their status, never the framework's; another
   * HttpException (an app middleware's, e.g. a 401) is answered as it is, like one thrown on the routes; any other
   * client error gets the module's text with its status. The rest is handed on as it is (the filter logs it and
   * answers a plain 500).
   */
  private translate(kind: RouteKind, error: unknown): unknown {
    const status = statusOf(error);
    if (status === undefined || status >= 500) return error;
    switch (status) {
      case 400:
        return pageError(BadRequestException, (m) => m.errors.unreadable);
      case 404:
        return this.notFound(kind);
      case 413:
        return pageError(PayloadTooLargeException, (m) => m.errors.tooMuchData);
      case 415:
        return pageError(UnsupportedMediaTypeException, (m) => m.errors.unsupportedBody);
      default:
        return error instanceof HttpException
          ? error
          : withPageText(new HttpException(PAGE_MESSAGES.errors.unreadable, status), (m) => m.errors.unreadable);
    }
  }

  /** The 404 of a path under the prefix that is not a route: the status route's own, or the pages'. */
  private notFound(kind: RouteKind): HttpException {
    return kind === 'status' ? new ElicitationNotFoundException() : pageError(NotFoundException, (m) => m.errors.noSuchPage);
  }

  private answer(kind: RouteKind, exception: unknown, req: unknown, res: unknown): void {
    const filter: ExceptionFilter = kind === 'status' ? this.status : this.pages;
    filter.catch(exception, httpHost(req, res));
  }

  private isSent(res: unknown): boolean {
    return raw(res as { headersSent?: boolean; raw?: { headersSent?: boolean } }).headersSent === true;
  }
}
