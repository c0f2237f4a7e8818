/**
 * `ElicitationDrainingGuard`: requests pass while the app serves; once the module shuts down (a real
 * `ElicitationService`, closed), a 503 with Retry-After and Connection: close, before anything else runs.
 */
import { describe, expect, it } from '@jest/globals';
import { ServiceUnavailableException } from '@nestjs/common';
import { DRAINING_RETRY_AFTER_S, ElicitationDrainingGuard } from '../../src/http/elicitation-draining.guard.js';
import { pageTextOf } from '../../src/http/exceptions/page-text.js';
import { ElicitationService } from '../../src/lifecycle/elicitation.service.js';
import { DE_MESSAGES } from '../../src/messages/catalogs/de.js';
import { PAGE_MESSAGES } from '../../src/messages/default-messages.js';
import { compileElicitation } from '../support/testing-module.js';
import { exchange } from './http-exchange.support.js';

describe('ElicitationDrainingGuard', () => {
  it('lets requests through while the app serves, and refuses them with a readable 503 once it shuts down', async () => {
    const moduleRef = await compileElicitation();
    const guard = new ElicitationDrainingGuard(moduleRef.get(ElicitationService));
    const serving = await exchange({}, (context) => guard.canActivate(context));
    expect(serving.result).toBe(true);
    expect(serving.headers.get('retry-after')).toBeNull();

    await moduleRef.close();
    const draining = await exchange({}, (context) => guard.canActivate(context));
    expect(draining.thrown).toBeInstanceOf(ServiceUnavailableException);
    expect((draining.thrown as ServiceUnavailableException).message).toBe(PAGE_MESSAGES.errors.shuttingDown);
    expect(pageTextOf(draining.thrown)?.(DE_MESSAGES)).toBe(DE_MESSAGES.errors.shuttingDown);
    expect(draining.headers.get('retry-after')).toBe(String(DRAINING_RETRY_AFTER_S));
    expect(draining.headers.get('connection')).toBe('close');
  });
});
