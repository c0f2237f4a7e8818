import { inspect } from 'node:util';
import type { LoggerService } from '@nestjs/common';

/**
 * A Nest logger that keeps every line the app logged, objects and errors written out in full (an error with its
 * message and stack), for the tests that grep the logs for a secret that must never be there.
 */
export class RecordingLogger implements LoggerService {
  readonly lines: string[] = [];

  log(...args: unknown[]) {
    this.record('log', args);
  }
  error(...args: unknown[]) {
    this.record('error', args);
  }
  warn(...args: unknown[]) {
    this.record('warn', args);
  }
  debug(...args: unknown[]) {
    this.record('debug', args);
  }
  verbose(...args: unknown[]) {
    this.record('verbose', args);
  }
  fatal(...args: unknown[]) {
    this.record('fatal', args);
  }

  private record(level: string, args: unknown[]) {
    this.lines.push(`${level} ${args.map((a) => (typeof a === 'string' ? a : inspect(a, { depth: 8 }))).join(' ')}`);
  }
}
