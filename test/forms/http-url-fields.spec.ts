/**
 * `httpUrlFields` (#28): a `format: 'uri'` field takes any scheme, `javascript:` and `data:` included; a form may
 * list the fields whose answer must be an `http:` or `https:` URL. The wire schema keeps `format: 'uri'`; the rule is
 * checked in form mode (a real SDK client answering `elicitation/create`) and on the hosted form page (the rule
 * stored beside the schema), and each catalog names the problem.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import type { Server } from 'node:http';
import type { INestApplication } from '@nestjs/common';
import type { TestingModule } from '@nestjs/testing';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import request from 'supertest';
import { z } from 'zod';
import { englishProblem } from '../../src/core/form-rules.js';
import { FormSchemaError } from '../../src/errors/form-schema.error.js';
import { defineForm } from '../../src/forms/define-form.js';
import { FormField, formFromClass } from '../../src/forms/form-decorators.js';
import { isHttpUrl } from '../../src/forms/form-validator.js';
import { formPlanOf } from '../../src/http/form-plan.js';
import { ElicitationRecords } from '../../src/lifecycle/elicitation-records.js';
import type { ElicitationService } from '../../src/lifecycle/elicitation.service.js';
import { SubmitAnswerTool } from '../../src/mcp/questions/submit-answer-tool.js';
import { ANSWER_IN_CHAT } from '../../src/mcp/questions/linked-questions.js';
import { McpElicitation } from '../../src/mcp/mcp-elicitation.js';
import { AR_MESSAGES } from '../../src/messages/catalogs/ar.js';
import { DE_MESSAGES } from '../../src/messages/catalogs/de.js';
import { EN_MESSAGES } from '../../src/messages/catalogs/en.js';
import { startPageApp } from '../../e2e/support/page-app.js';
import { csrfFor } from '../../e2e/support/page-form.js';
import { errorOf } from '../support/error-of.js';
import { linked } from '../support/linked-mcp.js';
import { compileElicitation } from '../support/testing-module.js';

const schema = {
  type: 'object',
  properties: {
    site: { type: 'string', title: 'Website', format: 'uri' },
    other: { type: 'string', format: 'uri' },
  },
  required: ['site'],
} as const;
const form = defineForm(schema, { httpUrlFields: ['site'] });

const REFUSED = [
  'javascript:alert(1)',
  'JAVASCRIPT:alert(1)',
  'JavaScript://%0aalert(1)',
  'data:text/html,<script>alert(1)</script>',
  ' https://x',
  'https://x ',
  'https://exa\nmple.com',
  'file:///etc/passwd',
  'ftp://example.com',
  'mailto:a@example.com',
  'https:example.com',
  'https://',
  '//example.com',
  'example.com',
];
const ACCEPTED = ['https://x', 'http://example.com', 'HTTPS://Example.com/a?b=c#d', 'https://[::1]:8443/', 'https://例え.jp/パス'];

describe('isHttpUrl', () => {
  it.each(REFUSED)('refuses %j', (value) => {
    expect(isHttpUrl(value)).toBe(false);
  });
  it.each(ACCEPTED)('accepts %j', (value) => {
    expect(isHttpUrl(value)).toBe(true);
  });
});

describe('a form with httpUrlFields', () => {
  it('refuses every other scheme on a listed field, naming the field and the rule, never the value', () => {
    for (const value of REFUSED.filter((v) => v.trim() !== '')) {
      const result = form.validate({ site: value });
      expect(result.ok).toBe(false);
      const issues = (result as { issues: Array<{ field: string; message: string; rule?: unknown }> }).issues;
      expect(issues.map((i) => i.field)).toEqual(['site']);
      expect(issues[0].message).toMatch(/^must be (a web address starting with https:\/\/ or http:\/\/|a URL)$/);
      expect(issues[0].message).not.toContain(value);
    }
    const js = form.validate({ site: 'javascript:alert(1)' });
    expect(js).toEqual({ ok: false, issues: [{ field: 'site', message: 'must be a web address starting with https:// or http://' }] });
    expect((js as { issues: Array<{ rule: unknown }> }).issues[0].rule).toEqual({ code: 'http-url' });
  });

  it('accepts http(s) URLs, and leaves the fields it does not list to format uri alone', () => {
    for (const value of ACCEPTED) expect(form.validate({ site: value })).toEqual({ ok: true, value: { site: value } });
    expect(form.validate({ site: 'https://x', other: 'javascript:alert(1)' })).toEqual({
      ok: true,
      value: { site: 'https://x', other: 'javascript:alert(1)' },
    });
  });

  it('keeps the wire schema as MCP form mode carries it (format uri, no other key)', () => {
    expect(form.schema).toEqual(schema);
    expect(form.httpUrlFields).toEqual(['site']);
    expect(defineForm(schema).httpUrlFields).toEqual([]);
  });

  it('works the same for class and Zod forms', () => {
    class Profile {
      @FormField({ title: 'Website', httpUrl: true }) site!: string;
    }
    const fromClass = formFromClass(Profile);
    expect(fromClass.schema.properties.site).toEqual({ type: 'string', title: 'Website', format: 'uri' });
    expect(fromClass.validate({ site: 'data:,x' }).ok).toBe(false);
    expect(fromClass.validate({ site: 'https://x' }).ok).toBe(true);
    const fromZod = defineForm(z.object({ site: z.url() }), { httpUrlFields: ['site'] });
    expect(fromZod.validate({ site: 'javascript:alert(1)' }).ok).toBe(false);
    expect(fromZod.validate({ site: 'https://x' })).toEqual({ ok: true, value: { site: 'https://x' } });
  });

  it.each([
    [{ httpUrlFields: ['nope'] }, 'nope', /is listed in httpUrlFields but is not a field/],
    [{ httpUrlFields: ['name'] }, 'name', /is not a text field with format "uri"/],
    [{ httpUrlFields: 'site' as unknown as string[] }, '(schema)', /not a list of field names/],
  ])('refuses %j when declared, naming the field', (options, field, message) => {
    const error = errorOf(() =>
      defineForm({ type: 'object', properties: { site: { type: 'string', format: 'uri' }, name: { type: 'string' } } }, options),
    );
    expect(error).toBeInstanceOf(FormSchemaError);
    expect((error as FormSchemaError).field).toBe(field);
    expect(error.message).toMatch(message);
  });

  it('refuses a default that is not an http(s) URL when declared', () => {
    const error = errorOf(() =>
      defineForm(
        { type: 'object', properties: { site: { type: 'string', format: 'uri', default: 'javascript:void 0' } } },
        { httpUrlFields: ['site'] },
      ),
    );
    expect(error).toBeInstanceOf(FormSchemaError);
    expect(error.message).toContain('has a default that is not an http(s) URL');
  });

  it('every catalog names the problem in its language', () => {
    const rule = { code: 'http-url' } as const;
    expect(EN_MESSAGES.validation.problem(rule)).toBe(englishProblem(rule));
    for (const messages of [EN_MESSAGES, DE_MESSAGES, AR_MESSAGES]) {
      const text = messages.validation.problem(rule);
      expect(text).toContain('https://');
      expect(text).not.toBe(messages.validation.problem({ code: 'format', format: 'uri' }));
    }
  });
});

describe('form mode (a real SDK client)', () => {
  let ref: TestingModule;
  let binding: McpElicitation;

  beforeEach(async () => {
    ref = await compileElicitation();
    binding = ref.get(McpElicitation);
  });
  afterEach(async () => {
    await ref.close();
  });

  it('asks again naming the field when the answer is javascript:, and the tool gets the http(s) URL', async () => {
    const { client, call } = await linked(binding, { form: {} });
    const seen: Array<{ message: string; requestedSchema: unknown }> = [];
    const answers = [
      { action: 'accept' as const, content: { site: 'javascript:alert(document.cookie)' } },
      { action: 'accept' as const, content: { site: 'https://example.com/me' } },
    ];
    client.setRequestHandler(ElicitRequestSchema, ({ params }) => {
      seen.push({ message: params.message, requestedSchema: 'requestedSchema' in params ? params.requestedSchema : undefined });
      return answers[seen.length - 1];
    });
    const { result } = await call(async (el) => {
      const answer = await el.elicit('Your website?', form);
      return answer.action === 'accept' ? answer.content.site : answer.action;
    });
    expect(JSON.parse((result as { content: Array<{ text: string }> }).content[0].text)).toBe('https://example.com/me');
    expect(seen).toHaveLength(2);
    expect(seen[0].requestedSchema).toEqual(schema);
    expect(seen[1].message).toBe('Your website?\n\nPlease correct: site must be a web address starting with https:// or http://.');
  });
});

describe('the hosted form page', () => {
  let app: INestApplication<Server>;
  let service: ElicitationService;
  let records: ElicitationRecords;

  beforeAll(async () => {
    // Five invalid posts below: more than the default attempts, which would decline the elicitation.
    ({ app, service } = await startPageApp({ limits: { maxFormAttempts: 10 } }));
    records = app.get(ElicitationRecords);
  });
  afterAll(async () => {
    await app.close();
  });

  it('stores the rule beside the schema, which any instance compiles', async () => {
    const created = await service.createUrlElicitation({ kind: 'form', form, message: 'Your website?', userId: 'alice' });
    const metadata = (await records.read(created.elicitationId))!.metadata;
    expect(metadata.form).toEqual({ schema, secretFields: [], httpUrlFields: ['site'] });
    expect(formPlanOf(metadata).validate({ site: 'data:text/html,x' }).ok).toBe(false);
    expect(formPlanOf(metadata).validate({ site: 'https://x' }).ok).toBe(true);
    // A form without the rule is stored as before.
    const plain = await service.createUrlElicitation({ kind: 'form', form: schema, message: 'Your website?', userId: 'alice' });
    expect((await records.read(plain.elicitationId))!.metadata.form).toEqual({ schema, secretFields: [] });
  });

  it('the model rung (submit-elicitation-answer) checks the stored rule too', async () => {
    const created = await service.createUrlElicitation({
      kind: 'form',
      form,
      message: 'Your website?',
      userId: 'alice',
      metadata: { [ANSWER_IN_CHAT]: true },
    });
    const chat = app.get(SubmitAnswerTool);
    const refused = await chat.submit('alice', {
      elicitationId: created.elicitationId,
      action: 'accept',
      content: { site: 'javascript:x' },
    });
    expect(refused.isError).toBe(true);
    expect(refused.content[0].text).toContain('site must be a web address starting with https:// or http://');
    expect((await service.getStatus(created.elicitationId))?.status).toBe('pending');
    const accepted = await chat.submit('alice', { elicitationId: created.elicitationId, action: 'accept', content: { site: 'https://x' } });
    expect(accepted.isError).toBeFalsy();
    expect(await service.getResult(created.elicitationId)).toEqual({ status: 'completed', data: { site: 'https://x' } });
  });

  it('shows the problem next to the field and stores nothing, then completes with an http(s) URL', async () => {
    const created = await service.createUrlElicitation({ kind: 'form', form, message: 'Your website?', userId: 'alice' });
    const path = new URL(created.url).pathname;
    const headers = { 'x-test-user': 'alice' };
    const post = async (site: string, locale = 'en') => {
      const { token, cookie } = await csrfFor(app.getHttpServer(), path, headers);
      return request(app.getHttpServer())
        .post(path)
        .set({ ...headers, Cookie: cookie, 'Accept-Language': locale })
        .type('form')
        .send({ site, action: 'submit', _csrf: token });
    };
    for (const value of ['javascript:alert(1)', 'JAVASCRIPT:alert(1)', 'data:text/html,x']) {
      const refused = await post(value);
      expect(refused.status).toBe(400);
      expect(refused.text).toContain('Website must be a web address starting with https:// or http://.');
      expect(refused.text).toMatch(/name="site"[^>]*aria-invalid="true"|aria-invalid="true"[^>]*name="site"/);
    }
    const german = await post('javascript:alert(1)', 'de');
    expect(german.status).toBe(400);
    expect(german.text).toContain('muss eine Webadresse sein, die mit https:// oder http:// beginnt');
    expect((await service.getStatus(created.elicitationId))?.status).toBe('pending');
    const accepted = await post('https://example.com/me');
    expect(accepted.status).toBe(200);
    expect(await service.getResult(created.elicitationId)).toEqual({ status: 'completed', data: { site: 'https://example.com/me' } });
  });
});
