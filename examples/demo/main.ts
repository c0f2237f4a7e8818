import { startDemoApp } from './demo-app.js';
import { notifySettingsFromEnv } from './demo-notify.js';
import { sessionSettingsFromEnv } from './mcp-sessions.js';

const env = process.env;
const ttl = env.ELICITATION_TTL_MS ? Number(env.ELICITATION_TTL_MS) : undefined;
// One key, or a ring as a comma-separated list (the first key seals; base64 and hex hold no comma).
const encryptionKey = env.ELICITATION_ENCRYPTION_KEY ? env.ELICITATION_ENCRYPTION_KEY.split(',') : undefined;
const storeKind = env.ELICITATION_STORE || 'memory';
if (storeKind !== 'memory' && !encryptionKey) {
  // The module refuses to start next, naming encryptionKey; this says how to give it one here.
  console.error(
    `ELICITATION_STORE=${storeKind} needs ELICITATION_ENCRYPTION_KEY, the same on every instance sharing the store: ` +
      'e.g. export ELICITATION_ENCRYPTION_KEY="$(openssl rand -base64 32)"',
  );
}

const { app, mcpUrl, url } = await startDemoApp({
  host: env.HOST || '127.0.0.1',
  port: env.PORT ? Number(env.PORT) : 3000,
  publicUrl: env.PUBLIC_URL || undefined,
  ttlMs: ttl,
  requestStateTtlMs: env.ELICITATION_REQUEST_STATE_TTL_MS ? Number(env.ELICITATION_REQUEST_STATE_TTL_MS) : undefined,
  pendingRetryWaitMs: env.ELICITATION_PENDING_RETRY_WAIT_MS ? Number(env.ELICITATION_PENDING_RETRY_WAIT_MS) : undefined,
  pendingRetryRounds: env.ELICITATION_PENDING_RETRY_ROUNDS ? Number(env.ELICITATION_PENDING_RETRY_ROUNDS) : undefined,
  callWaitMs: env.ELICITATION_CALL_WAIT_MS ? Number(env.ELICITATION_CALL_WAIT_MS) : undefined,
  instantDeclineMs: env.ELICITATION_INSTANT_DECLINE_MS ? Number(env.ELICITATION_INSTANT_DECLINE_MS) : undefined,
  keepAliveMs: env.ELICITATION_KEEP_ALIVE_MS ? Number(env.ELICITATION_KEEP_ALIVE_MS) : undefined,
  taskLeaseMs: env.ELICITATION_TASK_LEASE_MS ? Number(env.ELICITATION_TASK_LEASE_MS) : undefined,
  taskTtlMs: env.ELICITATION_TASK_TTL_MS ? Number(env.ELICITATION_TASK_TTL_MS) : undefined,
  store: storeKind as 'memory' | 'redis' | 'postgres',
  redisUrl: env.REDIS_URL || undefined,
  redisPrefix: env.ELICITATION_REDIS_PREFIX || undefined,
  databaseUrl: env.DATABASE_URL || undefined,
  postgresPrefix: env.ELICITATION_POSTGRES_PREFIX || undefined,
  throttleLimit: env.ELICITATION_THROTTLE_LIMIT ? Number(env.ELICITATION_THROTTLE_LIMIT) : undefined,
  encryptionKey,
  createPerMinute: env.ELICITATION_CREATE_PER_MINUTE ? Number(env.ELICITATION_CREATE_PER_MINUTE) : undefined,
  adapter: (env.ELICITATION_ADAPTER || 'express') as 'express' | 'fastify',
  // Benchmark-only routes (bench/http.bench.ts): never set in a deployed app.
  bench: env.ELICITATION_BENCH === '1',
  // MCP_SESSION_IDLE_MS, MCP_MAX_SESSIONS_PER_USER, MCP_MAX_SESSIONS; MCP_CONFORMANCE=1: callers without a bearer too.
  ...sessionSettingsFromEnv(env),
  // ELICITATION_WEBHOOK_URL (a URL, or "log"), ELICITATION_WEBHOOK_SECRET, ELICITATION_REMINDER_MS, ELICITATION_OUTBOX_*.
  notify: notifySettingsFromEnv(env),
});

// SIGTERM (docker stop, Kubernetes) and SIGINT (Ctrl-C) close the app gracefully, then exit 0: tools waiting on a
// person end with ElicitationShutdownError (a readable tool error), pages and the status route answer 503 meanwhile,
// the sweep stops, the Redis connections close (README "Graceful shutdown").
app.enableShutdownHooks(['SIGTERM', 'SIGINT'], { useProcessExit: true });

console.log(
  `\nMCP elicitation demo ready (${storeKind} store, ${env.ELICITATION_ADAPTER || 'express'}). ` +
    `MCP endpoint (Streamable HTTP, protocol 2026-07-28 and 2025-11-25 on one route): ${mcpUrl}`,
);
console.log(
  `How to: connect an MCP client with "Authorization: Bearer alice", sign the browser in at ${url}/demo/login?user=alice, ` +
    'call connect-service, approve-deploy, delete-file or connect-account (the development OpenID provider at /demo/oidc), and open the link the client shows.\n',
);
if (env.ELICITATION_WEBHOOK_URL) {
  // Never the URL itself: a webhook URL may carry a token.
  console.log(
    env.ELICITATION_WEBHOOK_URL === 'log'
      ? 'Notifications: each notice is printed to this log (ELICITATION_WEBHOOK_URL=log).\n'
      : 'Notifications: each notice is posted, signed, to ELICITATION_WEBHOOK_URL.\n',
  );
}
