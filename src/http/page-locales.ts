import { Injectable, Logger } from '@nestjs/common';
import { InjectPageOptions, type ElicitationPageOptions } from '../options/page-options.js';
import { PageCatalogs, type PageLocale } from '../messages/locales.js';
import { raw, type NodeRequestPart, type PageRequest } from './page-http.js';

/**
 * The language of each page request: `resolveLocale(req)` when it names a locale with a catalog, else the best
 * match of `Accept-Language`, else `defaultLocale`. Chosen once per request (kept by the Node request, so an error
 * page of the same request speaks the same language).
 */
@Injectable()
export class PageLocales {
  private readonly logger = new Logger('ElicitationPages');
  private readonly catalogs: PageCatalogs;
  private readonly chosen = new WeakMap<object, PageLocale>();

  constructor(@InjectPageOptions() private readonly options: ElicitationPageOptions) {
    this.catalogs = new PageCatalogs(options.defaultLocale, options.messages);
  }

  /** The default locale's catalog (for answers without a request). */
  get fallback(): PageLocale {
    return this.catalogs.defaultLocale;
  }

  of(req: PageRequest | undefined): PageLocale {
    if (!req) return this.catalogs.defaultLocale;
    const node = raw<NodeRequestPart>(req);
    let locale = this.chosen.get(node);
    if (!locale) {
      locale = this.fromHook(req) ?? this.catalogs.negotiate(headerOf(node.headers['accept-language']));
      this.chosen.set(node, locale);
    }
    return locale;
  }

  private fromHook(req: PageRequest): PageLocale | undefined {
    const resolve = this.options.resolveLocale;
    if (!resolve) return undefined;
    try {
      return this.catalogs.find(resolve(req));
    } catch (error) {
      this.logger.warn(`resolveLocale threw (${error instanceof Error ? error.name : typeof error}); Accept-Language decides.`);
      return undefined;
    }
  }
}

function headerOf(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value.join(',') : value;
}
