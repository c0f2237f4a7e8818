import { Inject } from '@nestjs/common';
import type { ResolvedElicitationOptions } from './resolved-options.js';

/**
 * The slice of the resolved options the routes (`http/`) read: where they are mounted, the pages' look and
 * languages, who may open a page, the sizes a post may have, the throttle and the upload sink. Never a secret: no
 * `encryptionKey` ring (a page's CSRF tokens come from `CsrfTokens`, provided on its own), no `oauth` providers
 * (their secrets stay with `oauth/`), no store.
 */
export interface ElicitationPageOptions {
  readonly baseUrl: ResolvedElicitationOptions['baseUrl'];
  readonly routePrefix: ResolvedElicitationOptions['routePrefix'];
  readonly title: ResolvedElicitationOptions['title'];
  readonly primaryColor: ResolvedElicitationOptions['primaryColor'];
  readonly primaryTextColor: ResolvedElicitationOptions['primaryTextColor'];
  readonly logoUrl?: ResolvedElicitationOptions['logoUrl'];
  readonly templatesDir?: ResolvedElicitationOptions['templatesDir'];
  readonly defaultLocale: ResolvedElicitationOptions['defaultLocale'];
  readonly messages: ResolvedElicitationOptions['messages'];
  readonly resolveLocale?: ResolvedElicitationOptions['resolveLocale'];
  readonly resolvePageUser?: ResolvedElicitationOptions['resolvePageUser'];
  readonly loginUrl?: ResolvedElicitationOptions['loginUrl'];
  /** Whether the pages' bar links to the passkey page: the app set the `passkeys` option. */
  readonly passkeysInBar?: boolean;
  readonly limits: Readonly<
    Pick<ResolvedElicitationOptions['limits'], 'maxBodyBytes' | 'maxUploadBytes' | 'uploadBufferBytes' | 'maxFormAttempts'>
  >;
  readonly throttle: ResolvedElicitationOptions['throttle'];
  readonly uploadSink?: ResolvedElicitationOptions['uploadSink'];
}

/** Injection token of the routes' slice of the options (`ElicitationPageOptions`). */
export const ELICITATION_PAGE_OPTIONS = Symbol('ElicitationPageOptions');

/** Injects the routes' slice of the options (`ELICITATION_PAGE_OPTIONS`), as `@InjectThrottlerOptions()` does. */
export const InjectPageOptions = (): PropertyDecorator & ParameterDecorator => Inject(ELICITATION_PAGE_OPTIONS);

/** The routes' slice, copied field by field out of the resolved options (so nothing else comes along). */
export function pageOptionsOf(options: ResolvedElicitationOptions): ElicitationPageOptions {
  const { maxBodyBytes, maxUploadBytes, uploadBufferBytes, maxFormAttempts } = options.limits;
  return Object.freeze({
    baseUrl: options.baseUrl,
    routePrefix: options.routePrefix,
    title: options.title,
    primaryColor: options.primaryColor,
    primaryTextColor: options.primaryTextColor,
    logoUrl: options.logoUrl,
    templatesDir: options.templatesDir,
    defaultLocale: options.defaultLocale,
    messages: options.messages,
    resolveLocale: options.resolveLocale,
    resolvePageUser: options.resolvePageUser,
    passkeysInBar: options.passkeys.listed,
    loginUrl: options.loginUrl,
    limits: Object.freeze({ maxBodyBytes, maxUploadBytes, uploadBufferBytes, maxFormAttempts }),
    throttle: options.throttle,
    uploadSink: options.uploadSink,
  });
}
