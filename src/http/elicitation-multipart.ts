import { Injectable, type OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';

/** What is used of a Fastify instance (typed structurally: Fastify is an optional peer, never imported). */
interface FastifyParsers {
  hasContentTypeParser(contentType: string): boolean;
  addContentTypeParser(
    contentType: string,
    parser: (request: unknown, payload: unknown, done: (error: null, body?: unknown) => void) => void,
  ): void;
  register(plugin: (instance: FastifyParsers) => Promise<void>): unknown;
}

/**
 * The file page's posts (`multipart/form-data`) read as a stream on either adapter: Express's body parsers leave
 * multipart bodies unread, while Fastify answers 415 to a content type without a parser. On Fastify this registers
 * one for `multipart/form-data` that leaves the body unread (the file page reads `req.raw` itself), as a root-level
 * plugin that loads after the adapter's own (`@fastify/multipart`, when the app or Nest registered it: then its parser,
 * which reads nothing either, is kept). The app's other multipart routes then get an unread body instead of a 415.
 * Provided only when the module mounts its routes.
 */
@Injectable()
export class ElicitationMultipartParser implements OnModuleInit {
  constructor(private readonly adapterHost: HttpAdapterHost) {}

  onModuleInit(): void {
    const adapter = this.adapterHost.httpAdapter as { getType?(): string; getInstance?(): unknown } | undefined;
    if (adapter?.getType?.() !== 'fastify') return;
    const instance = adapter.getInstance?.() as FastifyParsers | undefined;
    if (!instance || typeof instance.register !== 'function') return;
    // Fastify tells a plugin that returns a promise from one that takes a callback.
    const plugin = (root: FastifyParsers): Promise<void> => {
      if (!root.hasContentTypeParser('multipart/form-data')) {
        root.addContentTypeParser('multipart/form-data', (_request, _payload, done) => done(null, undefined));
      }
      return Promise.resolve();
    };
    // Like `fastify-plugin`: on the root context, not a child one.
    Object.assign(plugin, {
      [Symbol.for('skip-override')]: true,
      [Symbol.for('fastify.display-name')]: 'nestjs-mcp-elicitation-multipart',
    });
    instance.register(plugin);
  }
}
