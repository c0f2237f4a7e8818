import { Injectable, Logger, type OnApplicationBootstrap, Optional } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { InjectPageOptions, type ElicitationPageOptions } from '../options/page-options.js';

/** The part of a Node HTTP server the check reads. */
interface ListeningServer {
  once(event: 'listening', listener: () => void): unknown;
  address(): { port: number } | string | null;
}

/** Whether `hostname` (as `URL` gives it) names this machine: behind a proxy, ports legitimately differ. */
function isLoopback(hostname: string): boolean {
  return hostname === 'localhost' || hostname.endsWith('.localhost') || hostname === '[::1]' || /^127(\.\d{1,3}){3}$/.test(hostname);
}

/** The port of an http(s) URL, its scheme's default when it names none. */
function portOf(url: URL): number {
  if (url.port) return Number(url.port);
  return url.protocol === 'https:' ? 443 : 80;
}

/**
 * Warns once the app listens when `baseUrl` names this machine (localhost, 127.x, ::1) on another port than the one
 * the app listens on: every page link would then point at the wrong port (the usual slip: `PORT` set, `baseUrl` still
 * `http://localhost:3000`). Quiet for any other host, where a proxy may well serve another port.
 */
@Injectable()
export class BaseUrlPortCheck implements OnApplicationBootstrap {
  constructor(
    @InjectPageOptions() private readonly options: Pick<ElicitationPageOptions, 'baseUrl'>,
    @Optional() private readonly adapterHost?: HttpAdapterHost,
  ) {}

  onApplicationBootstrap(): void {
    const server = this.adapterHost?.httpAdapter?.getHttpServer?.() as Partial<ListeningServer> | undefined;
    if (typeof server?.once !== 'function' || typeof server.address !== 'function') return;
    const base = new URL(this.options.baseUrl);
    if (!isLoopback(base.hostname)) return;
    server.once('listening', () => {
      const address = server.address?.();
      if (!address || typeof address === 'string' || address.port === portOf(base)) return;
      new Logger('Elicitation').warn(
        `baseUrl ${this.options.baseUrl} names port ${portOf(base)}, but the app listens on port ${address.port}: the ` +
          'page links will not reach it. Set baseUrl (ElicitationModule.forRoot) to the address browsers use: from ' +
          'PUBLIC_URL, else http://localhost:<the PORT the app listens on>.',
      );
    });
  }
}
