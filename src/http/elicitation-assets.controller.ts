import { Get, Param, Res, UseFilters } from '@nestjs/common';
import { ElicitationNotFoundException } from './exceptions/elicitation-not-found.exception.js';
import { ElicitationPageFilter } from './elicitation-page.filter.js';
import { ASSET_CACHE_CONTROL, PageAssets } from './page-assets.js';
import type { PageResponse } from './page-http.js';
import { PageSecurity } from './page-security.js';

/**
 * The pages' stylesheet and script (`PageAssets`), at `/<routePrefix>/assets/<name>`: the same bytes for every page,
 * kept by the browser (`immutable`: the name changes with the content). Nothing here concerns an elicitation, so no
 * throttle and no observation; an unknown name gets the 404 page. Mounted under the `routePrefix` by
 * `createElicitationControllers`.
 */
@UseFilters(ElicitationPageFilter)
export class ElicitationAssetsController {
  constructor(
    private readonly assets: PageAssets,
    private readonly security: PageSecurity,
  ) {}

  @Get('assets/:name')
  asset(@Param('name') name: string, @Res({ passthrough: true }) res: PageResponse): string {
    const asset = this.assets.find(name);
    if (!asset) throw new ElicitationNotFoundException();
    this.security.applyBaseHeaders(res);
    res.header('Content-Type', asset.contentType);
    res.header('Cache-Control', ASSET_CACHE_CONTROL);
    return asset.body;
  }
}
