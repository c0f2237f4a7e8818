import { sessionSettingsFromEnv } from '../demo/mcp-sessions.js';
import { startMcpNestDemo } from './mcp-nest-app.js';

const env = process.env;
const num = (value: string | undefined) => (value ? Number(value) : undefined);

const { mcpUrl, url } = await startMcpNestDemo({
  host: env.HOST || '127.0.0.1',
  port: env.PORT ? Number(env.PORT) : 3000,
  publicUrl: env.PUBLIC_URL || undefined,
  ttlMs: num(env.ELICITATION_TTL_MS),
  pendingRetryWaitMs: num(env.ELICITATION_PENDING_RETRY_WAIT_MS),
  instantDeclineMs: num(env.ELICITATION_INSTANT_DECLINE_MS),
  keepAliveMs: num(env.ELICITATION_KEEP_ALIVE_MS),
  store: (env.ELICITATION_STORE || 'memory') as 'memory' | 'redis',
  redisUrl: env.REDIS_URL || undefined,
  redisPrefix: env.ELICITATION_REDIS_PREFIX || undefined,
  encryptionKey: env.ELICITATION_ENCRYPTION_KEY || undefined,
  // MCP_NEST_STATEFUL=0: MCP-Nest without sessions (2025-11-25 questions then go down the fallback ladder).
  statefulMode: env.MCP_NEST_STATEFUL === '0' ? false : undefined,
  // MCP_SESSION_IDLE_MS, MCP_MAX_SESSIONS_PER_USER, MCP_MAX_SESSIONS; MCP_CONFORMANCE=1: callers without a bearer too.
  ...sessionSettingsFromEnv(env),
});

console.log(`\nMCP elicitation demo on @rekog/mcp-nest ready. MCP endpoint (protocol 2026-07-28 and 2025-11-25): ${mcpUrl}`);
console.log(
  `How to: connect an MCP client with "Authorization: Bearer alice", sign the browser in at ${url}/demo/login?user=alice, ` +
    'call connect-service (or connect-service-dynamic, registered at run time), approve-deploy, delete-file or ' +
    'configure-profile, and open the link the client shows.\n',
);
