import { Inject } from '@nestjs/common';
import type { ResolvedElicitationOptions } from './resolved-options.js';

/**
 * The slice of the resolved options the module's operations read: where the audit log goes (`observability/`'s
 * `ElicitationAudit`) and how often the expiry sweep runs (`cleanup/`). Never a secret: no `encryptionKey` ring, no
 * `oauth` providers, no store.
 */
export interface ElicitationOperationsOptions {
  readonly audit: ResolvedElicitationOptions['audit'];
  readonly cleanupIntervalMs: ResolvedElicitationOptions['cleanupIntervalMs'];
}

/** Injection token of the operations' slice of the options (`ElicitationOperationsOptions`). */
export const ELICITATION_OPERATIONS_OPTIONS = Symbol('ElicitationOperationsOptions');

/** Injects the operations' slice of the options (`ELICITATION_OPERATIONS_OPTIONS`), as `@InjectPageOptions()` does. */
export const InjectOperationsOptions = (): PropertyDecorator & ParameterDecorator => Inject(ELICITATION_OPERATIONS_OPTIONS);

/** The operations' slice, copied field by field out of the resolved options (so nothing else comes along). */
export function operationsOptionsOf(options: ResolvedElicitationOptions): ElicitationOperationsOptions {
  return Object.freeze({ audit: options.audit, cleanupIntervalMs: options.cleanupIntervalMs });
}
