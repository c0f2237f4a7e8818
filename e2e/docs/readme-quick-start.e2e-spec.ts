/**
 * The README's Quick Start as a new user runs it (examples/readme/quick-start.ts, `src/github-keys.module.ts` of a
 * `nest new` app): only `PORT` set (no `PUBLIC_URL`), the app listening on it as `nest new`'s main.ts does, no login.
 * GET /github-key answers the page and the status route on that port; the page opens for the development identity
 * and is submitted with its CSRF pair; the status route then says completed and the app logs the answer's arrival.
 * Outside production only: with NODE_ENV=production the development identity is off.
 */
import type { Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { freePort } from '../../examples/demo/demo-process.js';
import { submitPage } from '../../src/testing/index.js';
import { RecordingLogger } from '../support/recording-logger.js';

const UUID = '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}';

describe('README Quick Start (examples/readme/quick-start.ts), with only PORT set', () => {
  let app: INestApplication<Server>;
  let port: number;
  const logger = new RecordingLogger();
  const saved = { PORT: process.env.PORT, PUBLIC_URL: process.env.PUBLIC_URL };

  beforeAll(async () => {
    port = await freePort();
    process.env.PORT = String(port);
    delete process.env.PUBLIC_URL;
    const { GitHubKeysModule } = await import('../../examples/readme/quick-start.js');
    app = await NestFactory.create<INestApplication<Server>>(GitHubKeysModule, { logger });
    await app.listen(process.env.PORT ?? 3000); // src/main.ts as `nest new` writes it
  });
  afterAll(async () => {
    await app?.close();
    for (const [key, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[key];
      else process.env[key] = value;
    }
  });

  it('GET /github-key → the page on PORT, answered as dev-user (CSRF pair) → the status route says completed', async () => {
    const asked = await fetch(`http://localhost:${port}/github-key`);
    expect(asked.status).toBe(200);
    const { page, status } = (await asked.json()) as { page: string; status: string };
    expect(page).toMatch(new RegExp(`^http://localhost:${port}/elicit/${UUID}/api-key$`));
    expect(status).toBe(page.replace(/api-key$/, 'status'));
    const id = /elicit\/([^/]+)\//.exec(page)![1];

    expect(await (await fetch(status)).json()).toMatchObject({ elicitationId: id, status: 'pending', completed: false });

    const submitted = await submitPage(page, { apiKey: 'ghp_quick_start_0123456789' });
    expect(submitted).toEqual({ status: 200, text: expect.stringContaining('Thank you. The API key was received.') });

    const view = (await (await fetch(status)).json()) as Record<string, unknown>;
    expect(view).toEqual({
      elicitationId: id,
      status: 'completed',
      createdAt: expect.any(String),
      expiresAt: expect.any(String),
      completed: true,
    });
    // waitForCompletion resolves in the background, just after the page's answer.
    for (let i = 0; i < 50 && !logger.lines.some((l) => l.includes('dev-user gave a GitHub key')); i++) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    expect(logger.lines.filter((l) => l.includes('dev-user gave a GitHub key'))).toHaveLength(1);
    expect(logger.lines.join('\n')).not.toContain('ghp_quick_start');
    // The links name the port the app listens on: no port warning.
    expect(logger.lines.filter((l) => l.includes('baseUrl'))).toEqual([]);
  });

  it('a second page answered Cancel: the status route says declined, and the app logs it', async () => {
    const { page, status } = (await (await fetch(`http://localhost:${port}/github-key`)).json()) as { page: string; status: string };
    expect((await submitPage(page, { action: 'cancel' })).status).toBe(200);
    expect(await (await fetch(status)).json()).toMatchObject({ status: 'declined', completed: false });
    for (let i = 0; i < 50 && !logger.lines.some((l) => l.includes('dev-user gave no key: declined')); i++) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    expect(logger.lines.filter((l) => l.includes('dev-user gave no key: declined'))).toHaveLength(1);
  });
});
