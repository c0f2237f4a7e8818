/**
 * The pages' language over real HTTP: `Accept-Language`, the `resolveLocale` hook (a cookie here), `messages`
 * laid over a built-in catalog, error pages in the same language, and a hosted form's field problems in it.
 */
import type { IncomingMessage, Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { type INestApplication, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { freePort } from '../../examples/demo/demo-process.js';
import { defineForm, ElicitationModule, ElicitationService } from '../../src/index.js';
import { submitPage } from '../../src/testing/index.js';

const KEY = Buffer.alloc(32, 3);

/** The page's `lang` and `dir`, its `<h1>`, and its whole text without tags. */
function read(html: string): { lang?: string; dir?: string; heading?: string; text: string } {
  const root = /<html lang="([^"]*)" dir="([^"]*)">/.exec(html);
  const heading = /<h1[^>]*>([^<]*)<\/h1>/.exec(html)?.[1];
  return { lang: root?.[1], dir: root?.[2], heading, text: html.replace(/<[^>]+>/g, ' ') };
}

describe('pages in the request’s language', () => {
  let app: INestApplication<Server>;
  let origin: string;
  let service: ElicitationService;

  beforeAll(async () => {
    const port = await freePort();
    origin = `http://127.0.0.1:${port}`;
    @Module({
      imports: [
        ElicitationModule.forRoot({
          baseUrl: origin,
          encryptionKey: KEY,
          resolvePageUser: (req: IncomingMessage) => req.headers['x-user'] as string | undefined,
          // A language the user chose in the app (a cookie here) wins over the browser's.
          resolveLocale: (req: IncomingMessage) => /(?:^|;\s*)lang=([\w-]+)/.exec(req.headers.cookie ?? '')?.[1],
          messages: { de: { labels: { submit: 'Schlüssel senden' } }, fr: { headings: { apiKey: 'Une clé API est nécessaire' } } },
        }),
      ],
    })
    class LocalesModule {}
    app = await NestFactory.create<INestApplication<Server>>(LocalesModule, { logger: false });
    await app.listen(port, '127.0.0.1');
    service = app.get(ElicitationService);
  });
  afterAll(() => app.close());

  const page = async (url: string, headers: Record<string, string>) => {
    const response = await fetch(url, { headers: { 'x-user': 'alice', ...headers } });
    return { status: response.status, ...read(await response.text()) };
  };
  const apiKeyPage = async () =>
    (await service.createUrlElicitation({ kind: 'api-key', userId: 'alice', message: 'Enter the key for the deploy bot.' })).url;

  it('answers in German for Accept-Language de-CH, with the catalog’s own text laid over by messages', async () => {
    const shown = await page(await apiKeyPage(), { 'accept-language': 'de-CH, en;q=0.5' });
    expect(shown).toMatchObject({ status: 200, lang: 'de', dir: 'ltr', heading: 'Ein API-Schlüssel wird benötigt' });
    expect(shown.text).toContain('Schlüssel senden');
    expect(shown.text).toContain('Abbrechen');
    expect(shown.text).toMatch(/Diese Anfrage läuft\s+in 10 Minuten\s+ab \(\d+\. \S+ \d{4}, \d\d:\d\d UTC\)/);
    // The tool's own message is shown as the tool gave it.
    expect(shown.text).toContain('Enter the key for the deploy bot.');
  });

  it('answers in Arabic, right to left, for Accept-Language ar', async () => {
    const shown = await page(await apiKeyPage(), { 'accept-language': 'ar' });
    expect(shown).toMatchObject({ status: 200, lang: 'ar', dir: 'rtl', heading: 'مطلوب مفتاح API' });
  });

  it('lets resolveLocale win over Accept-Language, and falls back to English for a language without a catalog', async () => {
    const url = await apiKeyPage();
    expect(await page(url, { 'accept-language': 'de', cookie: 'lang=ar' })).toMatchObject({ lang: 'ar', dir: 'rtl' });
    // An added locale: its own heading, English for the rest (the default locale's catalog).
    const french = await page(url, { 'accept-language': 'de', cookie: 'lang=fr' });
    expect(french).toMatchObject({ lang: 'fr', heading: 'Une clé API est nécessaire' });
    expect(french.text).toContain('Submit');
    expect(await page(url, { 'accept-language': 'es, it;q=0.5' })).toMatchObject({ lang: 'en', heading: 'An API key is needed' });
  });

  it('answers error pages in the same language: 404, 403 and 410', async () => {
    const missing = await page(`${origin}/elicit/00000000-0000-4000-8000-000000000000/api-key`, { 'accept-language': 'de' });
    expect(missing).toMatchObject({ status: 404, lang: 'de', heading: 'Anfrage nicht gefunden' });
    expect(missing.text).toContain('Diese Anfrage wurde nicht gefunden.');
    const other = await page(await apiKeyPage(), { 'accept-language': 'ar', 'x-user': 'mallory' });
    expect(other).toMatchObject({ status: 403, lang: 'ar', dir: 'rtl', heading: 'ليس طلبك' });
    const { url } = await service.createUrlElicitation({ kind: 'confirm', userId: 'alice', message: 'Go?', ttlMs: 1 });
    const start = Date.now();
    while (Date.now() - start < 2000 && (await service.getStatus(url.split('/').at(-2)!))?.status === 'pending') {
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    const gone = await page(url, { 'accept-language': 'de' });
    expect(gone).toMatchObject({ status: 410, lang: 'de', heading: 'Diese Anfrage ist abgelaufen' });
  });

  it('offers "Need more time?" once on a pending page, in the page’s language, then says it was given', async () => {
    const { url, elicitationId } = await service.createUrlElicitation({
      kind: 'confirm',
      userId: 'alice',
      message: 'Deploy?',
      ttlMs: 120_000,
    });
    const first = await fetch(url, { headers: { 'x-user': 'alice', 'accept-language': 'de' } });
    const html = await first.text();
    const path = new URL(url).pathname;
    expect(html).toContain(`<form class="extend" method="post" action="${path}/extend">`);
    expect(read(html).text).toContain('Mehr Zeit nötig?');
    expect(read(html).text).toContain('Gibt einmalig 2 Minuten dazu.');
    const token = /name="_csrf" value="([^"]+)"/.exec(html)![1];
    const cookie = first.headers.get('set-cookie')!.split(';')[0];
    const before = (await service.getStatus(elicitationId))!.expiresAt;
    const extended = await fetch(`${origin}${path}/extend`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'x-user': 'alice', cookie, 'content-type': 'application/x-www-form-urlencoded', origin },
      body: new URLSearchParams({ _csrf: token, action: 'extend' }).toString(),
    });
    expect(extended.status).toBe(303);
    expect(extended.headers.get('location')).toBe(path);
    expect(Date.parse((await service.getStatus(elicitationId))!.expiresAt) - Date.parse(before)).toBe(120_000);
    const again = await page(url, { 'accept-language': 'de' });
    expect(again.text).toContain('Sie haben jetzt mehr Zeit.');
    expect(again.text).not.toContain('Mehr Zeit nötig?');
  });

  it('says a hosted form’s field problems in the page’s language, under the error summary', async () => {
    const form = defineForm({
      type: 'object',
      properties: { name: { type: 'string', title: 'Name', minLength: 3 }, age: { type: 'integer', title: 'Alter', minimum: 18 } },
      required: ['name', 'age'],
    });
    const { url } = await service.createUrlElicitation({ kind: 'form', userId: 'alice', message: 'Ihre Angaben', form });
    const answered = await submitPage(url, { name: 'Al', age: '7' }, { headers: { 'x-user': 'alice', 'accept-language': 'de' } });
    expect(answered.status).toBe(400);
    expect(answered.text).toContain('Bitte prüfen Sie Ihre Angaben');
    expect(answered.text).toContain('Name muss mindestens 3 Zeichen lang sein.');
    expect(answered.text).toContain('Alter muss mindestens 18 sein.');
    expect(answered.text).toContain('Nach 2 weiteren ungültigen Versuchen wird diese Anfrage abgelehnt.');
  });
});
