/**
 * The hosted form page (`kind: 'form'`, URL mode with a schema) over a real app: rendering of every field
 * kind, typed submission, per-field errors with the input kept (secrets never), the attempt limit, cancel,
 * identity, CSRF, 409 after completion and escaping.
 */
import { randomBytes } from 'node:crypto';
import type { Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { INestApplication } from '@nestjs/common';
import request from 'supertest';
import type { ElicitationModuleOptions } from '../../src/options/elicitation-options.interface.js';
import { resolveElicitationOptions } from '../../src/options/elicitation-options.validation.js';
import { ElicitationService } from '../../src/lifecycle/elicitation.service.js';
import { buildForm } from '../../src/forms/define-form.js';
import type { FormSchema } from '../../src/forms/form-schema.js';
import { startPageApp } from '../support/page-app.js';
import { csrfFor, type CsrfPair } from '../support/page-form.js';

const HTML = 'text/html; charset=utf-8';
const SCRIPT = '<script>alert(1)</script>';
const ESCAPED = '&lt;script&gt;alert(1)&lt;/script&gt;';
const SECRET_DEFAULT = 'PLANTED-DEFAULT-SECRET-0451';

/** Every field kind of the restricted schema, in this order. */
const SCHEMA = {
  type: 'object',
  properties: {
    name: { type: 'string', title: `Name ${SCRIPT}`, description: `Your full name ${SCRIPT}`, minLength: 2, maxLength: 40 },
    email: { type: 'string', format: 'email', title: 'E-mail' },
    website: { type: 'string', format: 'uri', title: 'Website', default: 'https://example.com/' },
    birthday: { type: 'string', format: 'date', title: 'Birthday', default: '1990-05-17' },
    meetingAt: { type: 'string', format: 'date-time', title: 'Meeting', default: '2025-03-01T10:30:00+02:00' },
    seats: { type: 'number', title: 'Seats', minimum: 0.5, maximum: 10, default: 2.5 },
    age: { type: 'integer', title: 'Age', minimum: 18, maximum: 120 },
    newsletter: { type: 'boolean', title: `Newsletter ${SCRIPT}`, default: true },
    size: { type: 'string', title: 'Size', enum: ['s', 'm', 'l'] },
    color: { type: 'string', title: 'Colour', enum: ['r', 'g'], enumNames: [`Red ${SCRIPT}`, 'Green'], default: 'g' },
    plan: {
      type: 'string',
      title: 'Plan',
      oneOf: [
        { const: 'free', title: `Free ${SCRIPT}` },
        { const: 'pro', title: 'Pro' },
      ],
    },
    tags: { type: 'array', title: 'Tags', items: { type: 'string', enum: ['a', 'b', 'c'] }, maxItems: 2, default: ['a'] },
    features: {
      type: 'array',
      title: 'Features',
      description: `Pick features ${SCRIPT}`,
      items: {
        anyOf: [
          { const: 'x', title: `X ${SCRIPT}` },
          { const: 'y', title: 'Y' },
        ],
      },
      minItems: 1,
    },
    password: { type: 'string', title: 'Password', minLength: 8, default: SECRET_DEFAULT },
  },
  required: ['name', 'email', 'age', 'plan', 'features', 'password'],
} as const satisfies FormSchema;

const FIELD_ORDER = Object.keys(SCHEMA.properties);

async function startApp(options: Partial<ElicitationModuleOptions> = {}) {
  const { app, service } = await startPageApp(options);
  return { app, service, server: app.getHttpServer() };
}

const path = (url: string) => new URL(url).pathname;

/** The opening tags of the visible controls (input, select) named `name`, in page order. */
function controls(html: string, name: string): string[] {
  return [...html.matchAll(/<(input|select)\b[^>]*>/g)]
    .map((m) => m[0])
    .filter((tag) => tag.includes(` name="${name}"`) && !tag.includes('type="hidden"'));
}

function control(html: string, name: string): string {
  const found = controls(html, name);
  if (found.length !== 1) throw new Error(`expected one control named ${name}, found ${found.length}`);
  return found[0];
}

/** The options of the select named `name`, as `[value, text, selected]`. */
function selectOptions(html: string, name: string): Array<[string, string, boolean]> {
  const select = new RegExp(`<select\\b[^>]* name="${name}"[^>]*>([\\s\\S]*?)</select>`).exec(html);
  if (!select) throw new Error(`no select named ${name}`);
  return [...select[1].matchAll(/<option value="([^"]*)"( selected)? dir="auto">([^<]*)<\/option>/g)].map((m) => [m[1], m[3], !!m[2]]);
}

/** The checkboxes of the multi-select `name`, as `[value, label, checked]`. */
function checkboxes(html: string, name: string): Array<[string, string, boolean]> {
  return [
    ...html.matchAll(
      /<input type="checkbox" id="([^"]+)" name="([^"]+)" value="([^"]*)"([^>]*)>\s*<label for="\1" dir="auto">([^<]*)<\/label>/g,
    ),
  ]
    .filter((m) => m[2] === name)
    .map((m) => [m[3], m[5], m[4].includes(' checked')]);
}

describe('hosted form page (kind: form)', () => {
  let app: INestApplication;
  let service: ElicitationService;
  let server: Server;

  beforeAll(async () => {
    ({ app, service, server } = await startApp());
  });
  afterAll(async () => {
    await app.close();
  });

  const createForm = (extra: Record<string, unknown> = {}, schema: FormSchema = SCHEMA, secretFields = ['password']) =>
    service.createUrlElicitation({
      kind: 'form',
      form: buildForm(schema, { secretFields }),
      message: `Tell us about you ${SCRIPT}`,
      userId: 'alice',
      type: 'profile',
      ...extra,
    });
  const get = (url: string, user = 'alice') => request(server).get(path(url)).set('x-test-user', user);
  const csrf = (url: string, user = 'alice') => csrfFor(server, path(url), { 'x-test-user': user });
  /** POSTs urlencoded pairs exactly as given (repeated keys stay repeated), with a CSRF pair. */
  const post = (url: string, pairs: Array<[string, string]>, pair: CsrfPair | undefined, user = 'alice') => {
    const body = new URLSearchParams(pairs);
    if (pair) body.append('_csrf', pair.token);
    return request(server)
      .post(path(url))
      .set({ 'x-test-user': user, 'Content-Type': 'application/x-www-form-urlencoded', ...(pair ? { Cookie: pair.cookie } : {}) })
      .send(body.toString());
  };
  const status = async (id: string) => (await service.getStatus(id))!.status;

  /** A post that passes every field's check. */
  const VALID: Array<[string, string]> = [
    ['name', 'Ada Lovelace'],
    ['email', 'ada@example.com'],
    ['age', '36'],
    ['plan', 'pro'],
    ['features', ''],
    ['features', 'x'],
    ['password', 'correct horse battery'],
    ['action', 'submit'],
  ];

  describe('GET /elicit/:id/form', () => {
    let html: string;
    let res: request.Response;

    beforeAll(async () => {
      const created = await createForm();
      expect(created.url).toBe(`http://127.0.0.1:3000/elicit/${created.elicitationId}/form`);
      res = await get(created.url).expect(200);
      html = res.text;
    });

    it('is an HTML page with the security headers, the CSRF input, Submit and a no-validate Cancel', () => {
      expect(res.headers['content-type']).toBe(HTML);
      expect(res.headers['cache-control']).toBe('no-store');
      expect(res.headers['x-frame-options']).toBe('DENY');
      expect(res.headers['content-security-policy']).toMatch(/^default-src 'none';/);
      expect(([] as string[]).concat(res.headers['set-cookie'] ?? []).some((c) => c.startsWith('elicit_csrf='))).toBe(true);
      expect(html).toMatch(/<form method="post">\s*<input type="hidden" name="_csrf" value="[^"]+">/);
      expect(html).toContain('<button type="submit" name="action" value="submit" class="primary">Submit</button>');
      expect(html).toContain('<button type="submit" name="action" value="cancel" formnovalidate>Cancel</button>');
      expect(html).toContain('<h1 dir="auto">Please fill in this form</h1>');
      expect(html).toContain('Fields marked with an asterisk');
    });

    it('renders one control per field, in schema order', () => {
      const positions = FIELD_ORDER.map((name) => html.indexOf(` name="${name}"`));
      expect(positions.every((p) => p > 0)).toBe(true);
      expect([...positions].sort((a, b) => a - b)).toEqual(positions);
    });

    it('renders strings by format, with bounds, labels, required markers and linked help text', () => {
      expect(control(html, 'name')).toBe(
        '<input type="text" id="f0" name="name" minlength="2" maxlength="40" required aria-required="true" aria-describedby="f0-help">',
      );
      expect(html).toContain(`<label for="f0"><bdi>Name ${ESCAPED}</bdi> <span class="required" aria-hidden="true">*</span></label>`);
      expect(html).toContain(`<p class="help" id="f0-help" dir="auto">Your full name ${ESCAPED}</p>`);
      expect(control(html, 'email')).toBe('<input type="email" id="f1" name="email" required aria-required="true">');
      expect(html).toContain('<label for="f1"><bdi>E-mail</bdi> <span class="required" aria-hidden="true">*</span></label>');
      expect(control(html, 'website')).toBe('<input type="url" id="f2" name="website" value="https://example.com/">');
      expect(html).toContain('<label for="f2"><bdi>Website</bdi></label>');
      expect(control(html, 'birthday')).toBe('<input type="date" id="f3" name="birthday" value="1990-05-17">');
    });

    it('shows a date-time default as datetime-local in UTC and says the time is UTC', () => {
      expect(control(html, 'meetingAt')).toBe(
        '<input type="datetime-local" id="f4" name="meetingAt" value="2025-03-01T08:30:00" step="1" aria-describedby="f4-help">',
      );
      expect(html).toContain('<p class="help" id="f4-help" dir="auto">The time is in UTC.</p>');
    });

    it('renders numbers with min/max and step any, integers with step 1', () => {
      expect(control(html, 'seats')).toBe('<input type="number" id="f5" name="seats" value="2.5" min="0.5" max="10" step="any">');
      expect(control(html, 'age')).toBe(
        '<input type="number" id="f6" name="age" min="18" max="120" step="1" required aria-required="true">',
      );
    });

    it('renders a boolean as a labelled checkbox after a hidden false, checked by its default', () => {
      expect(html).toMatch(
        new RegExp(
          '<input type="hidden" name="newsletter" value="false">\\s*<div class="choice">\\s*' +
            '<input type="checkbox" id="f7" name="newsletter" value="true" checked>\\s*' +
            `<label for="f7" dir="auto">Newsletter ${ESCAPED.replace(/[()]/g, '\\$&')}</label>`,
        ),
      );
    });

    it('renders single-selects with titles: an empty first option only when optional without default', () => {
      expect(selectOptions(html, 'size')).toEqual([
        ['', '(none)', true],
        ['s', 's', false],
        ['m', 'm', false],
        ['l', 'l', false],
      ]);
      expect(control(html, 'size')).toBe('<select id="f8" name="size">');
      expect(selectOptions(html, 'color')).toEqual([
        ['r', `Red ${ESCAPED}`, false],
        ['g', 'Green', true],
      ]);
      // Required without a default: a placeholder the browser refuses, so nothing is picked silently.
      expect(control(html, 'plan')).toBe('<select id="f10" name="plan" required aria-required="true">');
      expect(selectOptions(html, 'plan')).toEqual([
        ['', 'Choose…', true],
        ['free', `Free ${ESCAPED}`, false],
        ['pro', 'Pro', false],
      ]);
      expect(html).toContain('<label for="f10"><bdi>Plan</bdi> <span class="required" aria-hidden="true">*</span></label>');
    });

    it('renders multi-selects as fieldsets of checkboxes with a legend, defaults checked', () => {
      expect(html).toMatch(
        /<fieldset aria-describedby="f11-help">\s*<legend><bdi>Tags<\/bdi><\/legend>\s*<input type="hidden" name="tags" value="">/,
      );
      expect(html).toContain('<p class="help" id="f11-help" dir="auto">Choose at most 2.</p>');
      expect(checkboxes(html, 'tags')).toEqual([
        ['a', 'a', true],
        ['b', 'b', false],
        ['c', 'c', false],
      ]);
      expect(html).toMatch(
        /<fieldset aria-describedby="f12-help">\s*<legend><bdi>Features<\/bdi> <span class="required" aria-hidden="true">\*<\/span><\/legend>/,
      );
      expect(html).toContain(`<p class="help" id="f12-help" dir="auto">Pick features ${ESCAPED} Choose at least 1.</p>`);
      expect(checkboxes(html, 'features')).toEqual([
        ['x', `X ${ESCAPED}`, false],
        ['y', 'Y', false],
      ]);
    });

    it('renders the secret field as an empty password input, never its default', () => {
      expect(control(html, 'password')).toBe(
        '<input type="password" id="f13" name="password" minlength="8" autocomplete="off" spellcheck="false" required aria-required="true">',
      );
      expect(html).not.toContain(SECRET_DEFAULT);
    });

    it('escapes the message and every title, description and option title', () => {
      expect(html).toContain(`<p class="message" dir="auto" tabindex="0">Tell us about you ${ESCAPED}</p>`);
      expect(html).not.toContain('<script>');
    });
  });

  describe('POST /elicit/:id/form', () => {
    it('stores exactly the typed content, with defaults for the omitted optional fields', async () => {
      const created = await createForm();
      const pair = await csrf(created.url);
      const res = await post(
        created.url,
        [
          ['name', 'Ada Lovelace'],
          ['email', ' ada@example.com '],
          ['website', ''], // empty optional → absent → default
          ['meetingAt', '2025-04-02T09:15'],
          ['age', '36'],
          ['newsletter', 'false'], // an unchecked box posts only the hidden false
          ['size', ''], // the empty option → absent (no default)
          ['plan', 'pro'],
          ['tags', ''],
          ['tags', 'b'],
          ['tags', 'c'], // repeated keys → an array
          ['features', ''],
          ['features', 'x'],
          ['password', 'correct horse battery'],
          ['action', 'submit'],
          // birthday, seats and color are not posted at all: their defaults apply.
        ],
        pair,
      );
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toBe(HTML);
      expect(res.text).toContain('Thank you. Your answers were received.');
      expect(res.text).not.toContain('correct horse battery');
      expect(await service.getResult(created.elicitationId)).toEqual({
        status: 'completed',
        data: {
          name: 'Ada Lovelace',
          email: 'ada@example.com',
          website: 'https://example.com/',
          birthday: '1990-05-17',
          meetingAt: '2025-04-02T09:15:00Z',
          seats: 2.5,
          age: 36,
          newsletter: false,
          color: 'g',
          plan: 'pro',
          tags: ['b', 'c'],
          features: ['x'],
          password: 'correct horse battery',
        },
      });
    });

    it('reads a checked box, decimals, seconds of datetime-local and an empty multi-select', async () => {
      const created = await createForm();
      const res = await post(
        created.url,
        [
          ...VALID,
          ['newsletter', 'false'],
          ['newsletter', 'true'],
          ['seats', '0.75'],
          ['meetingAt', '2025-12-31T23:59:58'],
          ['birthday', '2000-02-29'],
          ['tags', ''],
        ],
        await csrf(created.url),
      );
      expect(res.status).toBe(200);
      const result = await service.getResult<Record<string, unknown>>(created.elicitationId);
      expect(result).toMatchObject({
        status: 'completed',
        data: { newsletter: true, seats: 0.75, meetingAt: '2025-12-31T23:59:58Z', birthday: '2000-02-29', tags: [], age: 36 },
      });
    });

    it('answers 400 with per-field messages and the input kept, never the secret', async () => {
      const created = await createForm();
      const pair = await csrf(created.url);
      const res = await post(
        created.url,
        [
          ['name', ''],
          ['email', 'not-an-email'],
          ['seats', '99'],
          ['age', '12'],
          ['size', 'xl'],
          ['plan', 'pro'],
          ['tags', ''],
          ['tags', 'a'],
          ['tags', 'b'],
          ['tags', 'c'],
          ['features', ''],
          ['password', 'Sh0rt!x'],
          ['website', `"><script>alert(2)</script>`],
          ['action', 'submit'],
        ],
        pair,
      );
      expect(res.status).toBe(400);
      expect(res.headers['content-type']).toBe(HTML);
      const html = res.text;
      expect(html).toContain(
        '<p id="error">Check the 9 fields marked below. After 2 more invalid attempts this request will be declined.</p>',
      );
      // The summary at the top is the alert (it links to each field); the message by a field is plain text.
      const fieldError = (id: string, text: string) => `<p class="field-error" id="${id}-error">${text}</p>`;
      expect(html).toContain(fieldError('f0', `Name ${ESCAPED} is required.`));
      expect(control(html, 'name')).toBe(
        '<input type="text" id="f0" name="name" minlength="2" maxlength="40" required aria-required="true" aria-describedby="f0-help f0-error" aria-invalid="true">',
      );
      expect(html).toContain(fieldError('f1', 'E-mail must be an e-mail address.'));
      expect(control(html, 'email')).toBe(
        '<input type="email" id="f1" name="email" value="not-an-email" required aria-required="true" aria-describedby="f1-error" aria-invalid="true">',
      );
      expect(html).toContain(fieldError('f2', 'Website must be a URL.'));
      expect(control(html, 'website')).toContain('value="&quot;&gt;&lt;script&gt;alert(2)&lt;/script&gt;"');
      expect(html).toContain(fieldError('f5', 'Seats must be at most 10.'));
      expect(control(html, 'seats')).toContain('value="99"');
      expect(html).toContain(fieldError('f6', 'Age must be at least 18.'));
      expect(control(html, 'age')).toContain('value="12"');
      expect(control(html, 'age')).toContain('aria-invalid="true"');
      expect(html).toContain(fieldError('f8', 'Size must be one of the offered options.'));
      expect(html).toContain(fieldError('f11', 'Tags allows at most 2 options.'));
      expect(checkboxes(html, 'tags').map(([, , checked]) => checked)).toEqual([true, true, true]);
      expect(html).toContain('<fieldset aria-describedby="f11-help f11-error">');
      expect(html).toContain(fieldError('f12', 'Features needs at least 1 option.'));
      expect(html).toContain(fieldError('f13', 'Password must be at least 8 characters long.'));
      // The secret is never echoed back, and the page says to enter it again.
      expect(html).not.toContain('Sh0rt!x');
      expect(control(html, 'password')).not.toContain('value=');
      expect(html).toContain('<p class="help" id="f13-help" dir="auto">Enter it again: a secret is never sent back to the page.</p>');
      // Valid input is kept too; fields without a problem carry no error.
      expect(selectOptions(html, 'plan').find(([, , selected]) => selected)).toEqual(['pro', 'Pro', true]);
      expect(control(html, 'plan')).not.toContain('aria-invalid');
      expect(html).not.toContain('id="f10-error"');
      // A fresh CSRF token for the next try, and nothing raw.
      expect(html).toMatch(/name="_csrf" value="[^"]+"/);
      expect(html).not.toContain('<script>');
      expect(await status(created.elicitationId)).toBe('pending');
    });

    it('refuses a required field that was not posted at all, and a value the page cannot send', async () => {
      const created = await createForm();
      const res = await post(
        created.url,
        VALID.filter(([k]) => k !== 'plan').map(([k, v]): [string, string] => (k === 'name' ? ['name[x]', v] : [k, v])),
        await csrf(created.url),
      );
      expect(res.status).toBe(400);
      expect(res.text).toContain(`Plan is required.`);
      expect(res.text).toContain(`Name ${ESCAPED} must be text.`);
      expect(await status(created.elicitationId)).toBe('pending');
    });

    it('declines on the third invalid attempt, says so, and answers 409 afterwards', async () => {
      const created = await createForm();
      const pair = await csrf(created.url);
      const invalid: Array<[string, string]> = VALID.map(([k, v]) => [k, k === 'email' ? 'nope' : v]);
      const first = await post(created.url, invalid, pair).expect(400);
      expect(first.text).toContain('After 2 more invalid attempts this request will be declined.');
      await new Promise((r) => setTimeout(r, 25));
      const second = await post(created.url, invalid, pair).expect(400);
      expect(second.text).toContain('After 1 more invalid attempt this request will be declined.');
      expect(await status(created.elicitationId)).toBe('pending');
      await new Promise((r) => setTimeout(r, 25));
      const third = await post(created.url, invalid, pair).expect(400);
      expect(third.headers['content-type']).toBe(HTML);
      expect(third.text).toContain('<h1 dir="auto">Too many invalid attempts</h1>');
      expect(third.text).toContain('This request was declined after 3 invalid attempts. Nothing was saved.');
      expect(third.text).not.toContain('name="_csrf"');
      expect(await service.getResult(created.elicitationId)).toEqual({ status: 'declined' });
      const after = await post(created.url, VALID, pair).expect(409);
      expect(after.text).toContain('This request was already declined. Nothing was changed.');
      await get(created.url).expect(409);
    });

    it('counts per elicitation: a valid post after failures still completes; another form starts at zero', async () => {
      const a = await createForm();
      const b = await createForm();
      const pairA = await csrf(a.url);
      await post(
        a.url,
        VALID.filter(([k]) => k !== 'name'),
        pairA,
      ).expect(400);
      await post(
        a.url,
        VALID.filter(([k]) => k !== 'name'),
        pairA,
      ).expect(400);
      const first = await post(
        b.url,
        VALID.filter(([k]) => k !== 'name'),
        await csrf(b.url),
      ).expect(400);
      expect(first.text).toContain('After 2 more invalid attempts');
      await post(a.url, VALID, pairA).expect(200);
      expect(await service.getResult(a.elicitationId)).toMatchObject({ status: 'completed', data: { name: 'Ada Lovelace' } });
    });

    it('Cancel declines without any field (and is no failed attempt)', async () => {
      const created = await createForm();
      const res = await post(created.url, [['action', 'cancel']], await csrf(created.url)).expect(200);
      expect(res.text).toContain('You declined the request.');
      expect(await service.getResult(created.elicitationId)).toEqual({ status: 'declined' });
    });

    it('answers 409 after completion, on GET and POST, naming no data', async () => {
      const created = await createForm();
      const pair = await csrf(created.url);
      await post(created.url, VALID, pair).expect(200);
      const again = await post(created.url, [...VALID.filter(([k]) => k !== 'name'), ['name', 'Someone Else']], pair).expect(409);
      expect(again.text).toContain('This request was already answered. Nothing was changed.');
      expect(again.text).not.toMatch(/Ada|Someone|correct horse/);
      await get(created.url).expect(409);
      expect(await service.getResult(created.elicitationId)).toMatchObject({ data: { name: 'Ada Lovelace' } });
    });

    it('refuses another user (403) and an unidentified browser (401), on GET and POST', async () => {
      const created = await createForm();
      const page = await get(created.url, 'mallory').expect(403);
      expect(page.text).toContain('This request was made for a different account');
      expect(page.text).not.toContain('Tell us about you');
      const pair = await csrf(created.url);
      const stolen = await post(created.url, VALID, pair, 'mallory').expect(403);
      expect(stolen.text).toContain('different account');
      await request(server).get(path(created.url)).expect(401);
      expect(await status(created.elicitationId)).toBe('pending');
    });

    it('refuses a post without the CSRF token (403), and one from another site', async () => {
      const created = await createForm();
      const pair = await csrf(created.url);
      const missing = await post(created.url, VALID, undefined).set('Cookie', pair.cookie).expect(403);
      expect(missing.text).toContain('This form has expired or was not sent from this site');
      await post(created.url, VALID, pair).set('Sec-Fetch-Site', 'cross-site').expect(403);
      await post(created.url, [...VALID, ['_csrf', 'forged']], undefined)
        .set('Cookie', pair.cookie)
        .expect(403);
      expect(await status(created.elicitationId)).toBe('pending');
    });

    it('answers 404 for a form id on another page and another kind on the form page', async () => {
      const form = await createForm();
      await request(server).get(`/elicit/${form.elicitationId}/confirm`).set('x-test-user', 'alice').expect(404);
      const confirm = await service.createUrlElicitation({ kind: 'confirm', message: 'ok?', userId: 'alice' });
      await request(server).get(`/elicit/${confirm.elicitationId}/form`).set('x-test-user', 'alice').expect(404);
    });
  });

  describe('field names a form post cannot carry as they are', () => {
    const ODD = {
      type: 'object',
      properties: {
        action: { type: 'string', title: 'Action', enum: ['deploy', 'rollback'] },
        _csrf: { type: 'string', title: 'Underscore' },
        'a[b]': { type: 'integer', title: 'Brackets' },
        'plain name': { type: 'boolean', title: 'Plain' },
      },
      required: ['action', '_csrf', 'a[b]'],
    } as const satisfies FormSchema;

    it('post as _f<index> and still complete with the real field names', async () => {
      const created = await createForm({}, ODD, []);
      const page = await get(created.url).expect(200);
      expect(control(page.text, '_f0')).toBe('<select id="f0" name="_f0" required aria-required="true">');
      expect(control(page.text, '_f1')).toContain('type="text"');
      expect(control(page.text, '_f2')).toContain('type="number"');
      expect(page.text).toContain('name="plain name" value="true"');
      const res = await post(
        created.url,
        [
          ['_f0', 'rollback'],
          ['_f1', 'u'],
          ['_f2', '7'],
          ['plain name', 'false'],
          ['plain name', 'true'],
          ['action', 'submit'],
        ],
        await csrf(created.url),
      );
      expect(res.status).toBe(200);
      expect(await service.getResult(created.elicitationId)).toEqual({
        status: 'completed',
        data: { action: 'rollback', _csrf: 'u', 'a[b]': 7, 'plain name': true },
      });
    });
  });
});

describe('limits.maxFormAttempts', () => {
  it('is validated like the other limits', () => {
    const base = { baseUrl: 'http://127.0.0.1:3000', encryptionKey: randomBytes(32) };
    expect(resolveElicitationOptions(base, 'elicit', process.env).options.limits.maxFormAttempts).toBe(3);
    expect(
      resolveElicitationOptions({ ...base, limits: { maxFormAttempts: 5 } }, 'elicit', process.env).options.limits.maxFormAttempts,
    ).toBe(5);
    for (const bad of [0, -1, 1.5, 'three']) {
      expect(() => resolveElicitationOptions({ ...base, limits: { maxFormAttempts: bad as never } }, 'elicit', process.env)).toThrow(
        /limits\.maxFormAttempts/,
      );
    }
  });

  it('maxFormAttempts: 1 declines on the first invalid post', async () => {
    const { app, service, server } = await startApp({ limits: { maxFormAttempts: 1 } });
    try {
      const created = await service.createUrlElicitation({
        kind: 'form',
        form: { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] },
        message: 'A number?',
        userId: 'alice',
      });
      const pair = await csrfFor(server, path(created.url), { 'x-test-user': 'alice' });
      const res = await request(server)
        .post(path(created.url))
        .set({ 'x-test-user': 'alice', Cookie: pair.cookie })
        .type('form')
        .send({ n: 'x', _csrf: pair.token });
      expect(res.status).toBe(400);
      expect(res.text).toContain('declined after 1 invalid attempt.');
      expect(await service.getResult(created.elicitationId)).toEqual({ status: 'declined' });
    } finally {
      await app.close();
    }
  });
});
