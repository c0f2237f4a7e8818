// Type-checks an import of the `/terminus` subpath without `@nestjs/terminus` installed (it is an optional peer:
// the subpath's declarations name no terminus type). Never loaded at run time.
import {
  ElicitationHealthIndicator,
  type ElicitationHealthResult,
} from 'nestjs-mcp-elicitation/terminus';

export const terminusSubpath: [
  typeof ElicitationHealthIndicator,
  ElicitationHealthResult<'elicitation'> | undefined,
] = [ElicitationHealthIndicator, undefined];
