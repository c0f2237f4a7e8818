/**
 * `nestjs-mcp-elicitation/terminus`: the health indicator for `@nestjs/terminus` (an optional peer dependency,
 * loaded only by this entry point).
 */
export {
  DEFAULT_HEALTH_TIMEOUT_MS,
  ElicitationHealthIndicator,
  type ElicitationHealthCheckOptions,
  type ElicitationHealthDetails,
  type ElicitationHealthResult,
} from './elicitation-health.indicator.js';
