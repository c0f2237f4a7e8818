import { Get, Header, Logger, Param, Req, Res, ServiceUnavailableException } from '@nestjs/common';
import { ElicitationRecords } from '../lifecycle/elicitation-records.js';
import type { ElicitationStatusView } from '../core/elicitation.types.js';
import { ElicitationKeyError } from '../errors/elicitation-key.error.js';
import { ElicitationNotFoundException } from './exceptions/elicitation-not-found.exception.js';
import { ElicitationStoreUnavailableError, STORE_RETRY_AFTER_S } from '../errors/elicitation-store-unavailable.error.js';
import { StatusRoutes } from './elicitation-routes.decorator.js';
import { InRouteContext, routeElicitationId } from './elicitation-route-observer.js';
import type { PageRequest, PageResponse } from './page-http.js';
import { PageSecurity } from './page-security.js';
import { PAGE_MESSAGES } from '../messages/default-messages.js';

/**
 * The status route (`/:id/status`, JSON), polled by MCP clients and throttled per IP. Status only: never any
 * submitted data; 503 while the app shuts down (`ElicitationDrainingGuard`). The answer carries the routes' security
 * headers (`PageSecurity.applyBaseHeaders`), and so does every failure, as JSON (`ElicitationStatusFilter`). Mounted under the `routePrefix` by
 * `createElicitationControllers`.
 */
@StatusRoutes()
export class ElicitationStatusController {
  private readonly logger = new Logger('ElicitationStatus');

  constructor(
    private readonly records: ElicitationRecords,
    private readonly security: PageSecurity,
  ) {}

  @Get(':id/status')
  @Header('Cache-Control', 'no-store')
  @InRouteContext()
  // The request is for InRouteContext too (an expiry noticed here is audited with the client's address).
  async status(
    @Param('id') id: string,
    @Req() req: PageRequest,
    @Res({ passthrough: true }) res: PageResponse,
  ): Promise<ElicitationStatusView> {
    this.security.applyBaseHeaders(res);
    const checked = routeElicitationId(req, id);
    if (checked === undefined) throw new ElicitationNotFoundException();
    let view: ElicitationStatusView | undefined;
    try {
      view = await this.records.status(checked);
    } catch (error) {
      if (error instanceof ElicitationStoreUnavailableError) {
        res.header('Retry-After', String(STORE_RETRY_AFTER_S));
        throw new ServiceUnavailableException(PAGE_MESSAGES.errors.statusUnavailable);
      }
      if (error instanceof ElicitationKeyError) {
        this.logger.warn(error.message);
        throw new ServiceUnavailableException(PAGE_MESSAGES.errors.keyMismatch);
      }
      throw error;
    }
    if (!view) throw new ElicitationNotFoundException();
    return view;
  }
}
