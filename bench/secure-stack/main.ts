/**
 * Starts the secure-stack baseline (secure-stack.app.ts) for bench/http.bench.ts, in its own process:
 * `node dist-demo/bench/secure-stack/main.js` with HOST, PORT, ELICITATION_ADAPTER and SECURE_STACK_THROTTLE_TTL_MS.
 */
import 'reflect-metadata';
import { startSecureStack } from './secure-stack.app.js';

const adapter = process.env.ELICITATION_ADAPTER === 'fastify' ? 'fastify' : 'express';
const throttleTtlMs = Number(process.env.SECURE_STACK_THROTTLE_TTL_MS) || 60_000;
const host = process.env.HOST ?? '127.0.0.1';
const port = Number(process.env.PORT) || 3001;
const app = await startSecureStack({ adapter, throttleTtlMs, host, port });
process.once('SIGTERM', () => void app.close().then(() => process.exit(0)));
console.log(`secure stack baseline ready (${adapter}, throttle window ${throttleTtlMs} ms) on http://${host}:${port}`);
