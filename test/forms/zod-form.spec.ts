/**
 * Zod forms: a Zod 4 object accepted wherever a form is (defineForm, elicit, hosted forms), converted to the
 * restricted schema, linted at declaration, typed as z.infer, checked by the compiled validator and then by
 * Zod itself (refinements).
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import type { Server } from 'node:http';
import type { INestApplication } from '@nestjs/common';
import type { TestingModule } from '@nestjs/testing';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import request from 'supertest';
import { z } from 'zod';
import * as zm from 'zod/mini';
import { ElicitationService } from '../../src/lifecycle/elicitation.service.js';
import { ElicitationRecords } from '../../src/lifecycle/elicitation-records.js';
import { ElicitationValidationError } from '../../src/errors/elicitation-validation.error.js';
import { FormSchemaError } from '../../src/errors/form-schema.error.js';
import { defineForm, isFormDefinition, type FormDefinition } from '../../src/forms/define-form.js';
import { McpElicitation } from '../../src/mcp/mcp-elicitation.js';
import { toFormDefinition } from '../../src/mcp/questions/question-rules.js';
import { startPageApp } from '../../e2e/support/page-app.js';
import { csrfFor } from '../../e2e/support/page-form.js';
import { linked } from '../support/linked-mcp.js';
import { compileElicitation } from '../support/testing-module.js';

/** Every field kind a Zod form converts, with the restricted field it becomes. */
const EVERY_KIND = z.object({
  name: z.string().min(1).max(50).describe('Your full name'),
  nickname: z.string().meta({ title: 'Nickname', description: 'What we call you' }).optional(),
  email: z.email(),
  workEmail: z.string().email().optional(),
  homepage: z.url().optional(),
  oldHomepage: z.string().url().optional(),
  birthday: z.iso.date().optional(),
  meeting: z.iso.datetime().optional(),
  height: z.number().min(0.5).max(2.5).default(1.7),
  age: z.number().int().min(0).max(150),
  count: z.int().optional(),
  positive: z.int().positive().lt(10).optional(),
  ratio: z.number().gt(0).lt(1).optional(),
  newsletter: z.boolean().default(false),
  terms: z.literal(true),
  size: z.enum(['s', 'm', 'l']).default('m'),
  only: z.literal('yes').optional(),
  plan: z
    .union([z.literal('free').meta({ title: 'Free' }), z.literal('pro').meta({ title: 'Pro' })])
    .meta({ title: 'Plan' })
    .default('free'),
  mixed: z.union([z.literal('a').meta({ title: 'Option A' }), z.literal('b')]).optional(),
  tags: z
    .array(z.enum(['a', 'b', 'c']))
    .min(1)
    .max(2),
  roles: z.array(z.union([z.literal('dev').meta({ title: 'Developer' }), z.literal('ops').meta({ title: 'Operations' })])).default(['dev']),
  trimmed: z.string().trim().optional(),
});

const EVERY_KIND_SCHEMA = {
  type: 'object',
  properties: {
    name: { type: 'string', minLength: 1, maxLength: 50, description: 'Your full name' },
    nickname: { type: 'string', title: 'Nickname', description: 'What we call you' },
    email: { type: 'string', format: 'email' },
    workEmail: { type: 'string', format: 'email' },
    homepage: { type: 'string', format: 'uri' },
    oldHomepage: { type: 'string', format: 'uri' },
    birthday: { type: 'string', format: 'date' },
    meeting: { type: 'string', format: 'date-time' },
    height: { type: 'number', minimum: 0.5, maximum: 2.5, default: 1.7 },
    age: { type: 'integer', minimum: 0, maximum: 150 },
    count: { type: 'integer' },
    positive: { type: 'integer', minimum: 1, maximum: 9 },
    ratio: { type: 'number', minimum: 0, maximum: 1 },
    newsletter: { type: 'boolean', default: false },
    terms: { type: 'boolean' },
    size: { type: 'string', enum: ['s', 'm', 'l'], default: 'm' },
    only: { type: 'string', enum: ['yes'] },
    plan: {
      type: 'string',
      title: 'Plan',
      default: 'free',
      oneOf: [
        { const: 'free', title: 'Free' },
        { const: 'pro', title: 'Pro' },
      ],
    },
    mixed: {
      type: 'string',
      oneOf: [
        { const: 'a', title: 'Option A' },
        { const: 'b', title: 'b' },
      ],
    },
    tags: { type: 'array', items: { type: 'string', enum: ['a', 'b', 'c'] }, minItems: 1, maxItems: 2 },
    roles: {
      type: 'array',
      items: {
        anyOf: [
          { const: 'dev', title: 'Developer' },
          { const: 'ops', title: 'Operations' },
        ],
      },
      default: ['dev'],
    },
    trimmed: { type: 'string' },
  },
  required: ['name', 'email', 'age', 'terms', 'tags'],
};

const VALID = { name: 'Mona', email: 'mona@example.com', age: 30, terms: true, tags: ['a'] };

describe('defineForm(z.object(...)): conversion', () => {
  const form = defineForm(EVERY_KIND);

  it('converts every field kind to the restricted schema (optional and defaulted fields are not required)', () => {
    expect(form.schema).toEqual(EVERY_KIND_SCHEMA);
    expect(form.secretFields).toEqual([]);
    expect(isFormDefinition(form)).toBe(true);
    expect(isFormDefinition(EVERY_KIND)).toBe(false);
  });

  it('sends a plain JSON schema: no $schema, no Zod-only keys, key by key what the lint allows', () => {
    expect(JSON.stringify(form.schema)).not.toMatch(/\$schema|pattern|exclusive|additionalProperties|readOnly/);
  });

  it('inlines fields registered with .meta({ id }) and drops annotations (examples, readOnly)', () => {
    const shared = z
      .string()
      .min(2)
      .meta({ id: 'zod-forms-spec-city', title: 'City', examples: ['Paris'] });
    const form2 = defineForm(z.object({ home: shared, work: shared.optional(), picks: z.array(z.enum(['x'])).readonly() }));
    expect(form2.schema).toEqual({
      type: 'object',
      properties: {
        home: { type: 'string', minLength: 2, title: 'City' },
        work: { type: 'string', minLength: 2, title: 'City' },
        picks: { type: 'array', items: { type: 'string', enum: ['x'] } },
      },
      required: ['home', 'picks'],
    });
  });

  it('reads zod mini objects too (through zod/v4/core, loaded at first use)', () => {
    const mini = defineForm(
      zm.object({ name: zm.string().check(zm.minLength(2)), size: zm.optional(zm.enum(['s', 'm'])), agree: zm.boolean() }),
    );
    expect(mini.schema).toEqual({
      type: 'object',
      properties: {
        name: { type: 'string', minLength: 2 },
        size: { type: 'string', enum: ['s', 'm'] },
        agree: { type: 'boolean' },
      },
      required: ['name', 'agree'],
    });
    expect(mini.validate({ name: 'x', agree: true })).toEqual({
      ok: false,
      issues: [{ field: 'name', message: 'must be at least 2 character(s)' }],
    });
    expect(mini.parse({ name: 'xy', agree: false })).toEqual({ name: 'xy', agree: false });
  });

  it('takes secretFields and notSecret as for any form', () => {
    const secret = defineForm(z.object({ user: z.string(), password: z.string().min(8) }), { secretFields: ['password'] });
    expect(secret.secretFields).toEqual(['password']);
    const cleared = defineForm(z.object({ tokenCount: z.int() }), { notSecret: ['tokenCount'] });
    expect(cleared.schema.properties.tokenCount).toEqual({ type: 'integer' });
  });

  it('returns the same definition for the same Zod object given where a form is accepted', () => {
    const schema = z.object({ a: z.string() });
    const first = toFormDefinition(schema);
    expect(toFormDefinition(schema)).toBe(first);
    expect(first.schema).toEqual({ type: 'object', properties: { a: { type: 'string' } }, required: ['a'] });
    expect(toFormDefinition(first)).toBe(first);
  });
});

describe('defineForm(z.object(...)): refused at declaration (FormSchemaError naming the field)', () => {
  const refusals: Array<[string, z.ZodType, RegExp]> = [
    ['a nested object', z.object({ street: z.string() }), /is a nested object/],
    ['an array of objects', z.array(z.object({ x: z.string() })), /is a list of objects/],
    ['an array of free text', z.array(z.string()), /is a list of free values/],
    ['a regex', z.string().regex(/^[a-z]+$/), /has "pattern", which MCP form mode cannot carry/],
    ['a regex on a URL', z.url().regex(/^https:/), /has "pattern"/],
    ['a regex on an e-mail (two patterns)', z.email().regex(/@example\.com$/), /has "pattern"/],
    ['a local date-time (a pattern without a format)', z.iso.datetime({ local: true }), /has "pattern"/],
    ['startsWith', z.string().startsWith('x'), /has format "starts_with"/],
    ['a format the spec lacks', z.uuid(), /has format "uuid": use one of email, uri, date, date-time/],
    ['multipleOf', z.number().multipleOf(5), /has "multipleOf"/],
    ['a nullable field', z.string().nullable(), /can be null/],
    ['a nullish enum', z.enum(['a', 'b']).nullish(), /can be null/],
    ['a union with a non-literal', z.union([z.literal('a'), z.string()]), /is a union of other things than string literals/],
    ['a union of numbers and strings', z.union([z.string(), z.number()]), /is a union of other things than string literals/],
    ['a number literal', z.literal(3), /select of other things than strings|literal that is not a string/],
    ['a numeric enum', z.enum({ A: 1, B: 2 }), /not all strings|other things than strings/],
    ['an option with a description', z.union([z.literal('a').describe('first'), z.literal('b')]), /has an option with "description"/],
    ['z.any()', z.any(), /accepts any value/],
    ['z.unknown()', z.unknown(), /accepts any value/],
    ['a Date', z.date(), /has a type a form cannot carry \(Zod: Date cannot be represented/],
    ['a bigint', z.bigint(), /has a type a form cannot carry/],
    ['a transform', z.string().transform((s) => s.length), /has a transform/],
    ['a string-to-boolean codec', z.stringbool(), /has a transform/],
    [
      'a codec to a Date',
      z.codec(z.iso.datetime(), z.date(), { decode: (s) => new Date(s), encode: (d) => d.toISOString() }),
      /has a transform/,
    ],
    ['z.preprocess', z.preprocess((v) => String(v), z.string()), /has a transform/],
    ['a record', z.record(z.string(), z.string()), /is a nested object/],
    ['a tuple', z.tuple([z.string()]), /has "prefixItems"/],
    ['a default outside its bounds', z.string().min(5).default('abc'), /has a default outside its length bounds/],
    [
      'a default outside its options',
      z
        .array(z.enum(['a', 'b']))
        .max(1)
        .default(['a', 'b']),
      /outside its item-count bounds/,
    ],
    ['an async refinement', z.string().refine(async (s) => Promise.resolve(s.length > 1)), /has an async refinement/],
  ];

  it.each(refusals)('refuses %s', (_, field, message) => {
    let error: unknown;
    try {
      defineForm(z.object({ ok: z.string(), bad: field }));
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(FormSchemaError);
    expect((error as FormSchemaError).field).toBe('bad');
    expect((error as Error).message).toMatch(message);
  });

  it('refuses secret-looking fields unless declared secret or cleared', () => {
    expect(() => defineForm(z.object({ apiKey: z.string() }))).toThrow(/Form field "apiKey" looks like a secret/);
    expect(() => defineForm(z.object({ code: z.string().meta({ title: 'One-time password' }) }))).toThrow(
      /Form field "code" looks like a secret/,
    );
    expect(() => defineForm(z.object({ apiKey: z.string() }), { secretFields: ['apiKey'] })).not.toThrow();
  });

  it.each([
    ['a schema that is not an object', z.string()],
    ['a transform of the whole object', z.object({ a: z.string() }).transform((o) => o.a)],
    ['an object wrapped in optional', z.object({ a: z.string() }).optional()],
  ])('refuses %s as a whole', (_, schema) => {
    expect(() => defineForm(schema as unknown as z.ZodObject)).toThrow(/Form field "\(schema\)" must be a z\.object/);
  });

  it('refuses an empty object and an async refinement of the whole object', () => {
    expect(() => defineForm(z.object({}))).toThrow(/Form field "\(schema\)" has no fields/);
    expect(() => defineForm(z.object({ a: z.string() }).refine(async () => Promise.resolve(true)))).toThrow(
      /Form field "\(schema\)" has an async refinement/,
    );
  });
});

describe('defineForm(z.object(...)): answers', () => {
  const signUp = defineForm(
    z
      .object({
        email: z.email(),
        password: z.string().min(8),
        confirm: z.string().min(8),
        start: z.iso.date(),
        end: z.iso.date().optional(),
        seats: z.int().min(1).max(10).default(1),
        team: z.string().optional(),
      })
      .refine((v) => v.password === v.confirm, { message: 'must repeat the password', path: ['confirm'] })
      .refine((v) => !v.end || v.end >= v.start, { message: 'must not be before the start', path: ['end'] })
      .superRefine((v, ctx) => {
        if (v.seats > 1 && !v.team) ctx.addIssue({ code: 'custom', message: 'is needed for more than one seat', path: ['team'] });
      })
      .check((ctx) => {
        if (ctx.value.email.endsWith('@blocked.example')) ctx.issues.push({ code: 'custom', input: ctx.value, message: 'Blocked domain' });
      }),
    { secretFields: ['password', 'confirm'] },
  );
  const good = { email: 'a@example.com', password: 'correct horse', confirm: 'correct horse', start: '2026-01-10' };

  it('is typed as z.infer of the schema', () => {
    const answer = signUp.parse(good);
    const typed: { email: string; password: string; start: string; end?: string; seats: number; team?: string } = answer;
    // @ts-expect-error seats is a number (defaulted: always present)
    const wrong: { seats: string } = answer;
    void wrong;
    expect(typed).toEqual({ ...good, seats: 1 });
    const form: FormDefinition<z.infer<typeof EVERY_KIND>> = defineForm(EVERY_KIND);
    const content = form.parse(VALID);
    const plan: 'free' | 'pro' = content.plan;
    const tags: ('a' | 'b' | 'c')[] = content.tags;
    const terms: true = content.terms;
    expect([plan, tags, terms]).toEqual(['free', ['a'], true]);
  });

  it('applies defaults, then runs Zod (whose output is the answer: .trim() applies)', () => {
    const form = defineForm(EVERY_KIND);
    expect(form.parse({ ...VALID, trimmed: '  hi  ' })).toEqual({
      ...VALID,
      trimmed: 'hi',
      height: 1.7,
      newsletter: false,
      size: 'm',
      plan: 'free',
      roles: ['dev'],
    });
  });

  it('turns each failed refinement into an issue on the field of its path', () => {
    const result = signUp.validate({ ...good, confirm: 'correct horsE', end: '2026-01-01', seats: 2 });
    expect(result).toEqual({
      ok: false,
      issues: [
        { field: 'confirm', message: 'must repeat the password' },
        { field: 'end', message: 'must not be before the start' },
        { field: 'team', message: 'is needed for more than one seat' },
      ],
    });
    expect(() => signUp.parse({ ...good, confirm: 'nope nope' })).toThrow(ElicitationValidationError);
    expect(() => signUp.parse({ ...good, confirm: 'nope nope' })).toThrow(/confirm must repeat the password/);
  });

  it('names the whole answer for a refinement without a path', () => {
    expect(signUp.validate({ ...good, email: 'x@blocked.example' })).toEqual({
      ok: false,
      issues: [{ field: '(answer)', message: 'Blocked domain' }],
    });
  });

  it('checks with the compiled validator first: unknown keys, types and bounds never reach the refinements', () => {
    expect(signUp.validate({ ...good, admin: true })).toEqual({
      ok: false,
      issues: [{ field: 'admin', message: 'is not a field of this form' }],
    });
    expect(signUp.validate({ ...good, confirm: 'short', seats: 11 })).toEqual({
      ok: false,
      issues: [
        { field: 'confirm', message: 'must be at least 8 character(s)' },
        { field: 'seats', message: 'must be at most 10' },
      ],
    });
    expect(signUp.validate(null)).toEqual({ ok: false, issues: [{ field: '(answer)', message: 'must be an object of field values' }] });
  });

  it('lets Zod refuse what the restricted schema cannot say (exclusive bounds, z.literal(true), Zod-exact formats)', () => {
    const form = defineForm(EVERY_KIND);
    expect(form.validate({ ...VALID, ratio: 0 })).toMatchObject({ ok: false, issues: [{ field: 'ratio' }] });
    expect(form.validate({ ...VALID, terms: false })).toMatchObject({ ok: false, issues: [{ field: 'terms' }] });
    expect(form.validate({ ...VALID, meeting: '2026-01-01T10:00:00+02:00' })).toMatchObject({ ok: false, issues: [{ field: 'meeting' }] });
    expect(form.validate({ ...VALID, positive: 9 }).ok).toBe(true);
  });

  it('refuses, when validating, a refinement that turns out asynchronous (a plain function returning a promise)', () => {
    const form = defineForm(z.object({ a: z.string() }).refine(() => Promise.resolve(true) as unknown as boolean));
    expect(() => form.validate({ a: 'x' })).toThrow(FormSchemaError);
    expect(() => form.validate({ a: 'x' })).toThrow(/has an async refinement/);
  });

  it('types and checks the README example', () => {
    const booking = defineForm(
      z
        .object({
          guests: z.int().min(1).max(8).describe('How many guests'),
          room: z.union([z.literal('single').meta({ title: 'Single room' }), z.literal('double').meta({ title: 'Double room' })]),
          arrival: z.iso.date(),
          nights: z.int().min(1).default(1),
          extras: z
            .array(z.enum(['breakfast', 'parking']))
            .max(2)
            .optional(),
        })
        .refine((b) => b.room === 'double' || b.guests === 1, { message: 'must be 1 for a single room', path: ['guests'] }),
    );
    const answer: { guests: number; room: 'single' | 'double'; arrival: string; nights: number; extras?: ('breakfast' | 'parking')[] } =
      booking.parse({ guests: 2, room: 'double', arrival: '2026-12-01' });
    expect(answer).toEqual({ guests: 2, room: 'double', arrival: '2026-12-01', nights: 1 });
    expect(booking.validate({ guests: 2, room: 'single', arrival: '2026-12-01' })).toEqual({
      ok: false,
      issues: [{ field: 'guests', message: 'must be 1 for a single room' }],
    });
  });

  it('keeps raw schemas working unchanged', () => {
    const raw = defineForm({ type: 'object', properties: { a: { type: 'string', minLength: 1 } }, required: ['a'] });
    const typed: { a: string } = raw.parse({ a: 'x' });
    expect(typed).toEqual({ a: 'x' });
    expect(() => defineForm({ type: 'object', properties: { a: { type: 'string', pattern: 'x' } } } as never)).toThrow(/has "pattern"/);
  });
});

describe('elicit(message, zodObject) through a real SDK 1.x McpServer and Client (2025-11-25)', () => {
  let ref: TestingModule;
  let binding: McpElicitation;

  beforeEach(async () => {
    ref = await compileElicitation();
    binding = ref.get(McpElicitation);
  });
  afterEach(async () => {
    await ref.close();
  });

  const booking = z
    .object({
      guests: z.int().min(1).max(8).describe('How many guests'),
      room: z.union([z.literal('single').meta({ title: 'Single room' }), z.literal('double').meta({ title: 'Double room' })]),
      breakfast: z.boolean().default(false),
    })
    .refine((b) => b.room === 'double' || b.guests === 1, { message: 'must be 1 for a single room', path: ['guests'] });

  it('sends the converted schema, asks again naming a failed refinement, and returns the answer typed', async () => {
    const { client, call } = await linked(binding, { form: {} });
    const seen: Array<{ message: string; requestedSchema: unknown }> = [];
    const answers = [
      { action: 'accept' as const, content: { guests: 2, room: 'single' } },
      { action: 'accept' as const, content: { guests: 2, room: 'double' } },
    ];
    client.setRequestHandler(ElicitRequestSchema, ({ params }) => {
      seen.push({ message: params.message, requestedSchema: 'requestedSchema' in params ? params.requestedSchema : undefined });
      return answers[seen.length - 1];
    });
    const { result } = await call(async (el) => {
      const answer = await el.elicit('Book a room', booking);
      if (answer.action !== 'accept') throw new Error('expected accept');
      const typed: { guests: number; room: 'single' | 'double'; breakfast: boolean } = answer.content;
      return typed;
    });
    expect(JSON.parse((result as { content: Array<{ text: string }> }).content[0].text)).toEqual({
      guests: 2,
      room: 'double',
      breakfast: false,
    });
    expect(seen).toHaveLength(2);
    expect(seen[0]).toEqual({
      message: 'Book a room',
      requestedSchema: {
        type: 'object',
        properties: {
          guests: { type: 'integer', minimum: 1, maximum: 8, description: 'How many guests' },
          room: {
            type: 'string',
            oneOf: [
              { const: 'single', title: 'Single room' },
              { const: 'double', title: 'Double room' },
            ],
          },
          breakfast: { type: 'boolean', default: false },
        },
        required: ['guests', 'room'],
      },
    });
    expect(seen[1].message).toBe('Book a room\n\nPlease correct: guests must be 1 for a single room.');
  });

  it('refuses a Zod object that form mode cannot carry when the question is asked, naming the field', async () => {
    const { call } = await linked(binding, { form: {} });
    const { result } = await call((el) => el.elicit('Address?', z.object({ address: z.object({ city: z.string() }) })));
    expect(result.isError).toBe(true);
    expect((result as { content: Array<{ text: string }> }).content[0].text).toMatch(/Form field "address" is a nested object/);
  });
});

describe('hosted form built from Zod (createUrlElicitation, kind: form)', () => {
  let app: INestApplication<Server>;
  let service: ElicitationService;
  let records: ElicitationRecords;

  beforeAll(async () => {
    ({ app, service } = await startPageApp());
    records = app.get(ElicitationRecords);
  });
  afterAll(async () => {
    await app.close();
  });

  const delivery = z
    .object({
      date: z.iso.date().describe('Delivery day'),
      slot: z.enum(['am', 'pm']).default('am'),
      notes: z.string().max(200).optional(),
    })
    .refine((d) => !d.date.endsWith('-25'), { message: 'must not be the 25th (we are closed)', path: ['date'] });

  const create = (form: unknown) =>
    service.createUrlElicitation({ kind: 'form', form: form as typeof delivery, message: 'When should we deliver?', userId: 'alice' });

  it('stores the converted schema in the record', async () => {
    const created = await create(delivery);
    const record = await records.read(created.elicitationId);
    expect(record?.metadata.form).toEqual({
      schema: {
        type: 'object',
        properties: {
          date: { type: 'string', format: 'date', description: 'Delivery day' },
          slot: { type: 'string', enum: ['am', 'pm'], default: 'am' },
          notes: { type: 'string', maxLength: 200 },
        },
        required: ['date'],
      },
      secretFields: [],
    });
  });

  it('refuses a Zod form the page cannot carry with a FormSchemaError naming the field', async () => {
    await expect(create(z.object({ at: z.date() }))).rejects.toThrow(/Form field "at" has a type a form cannot carry/);
  });

  it('renders it, shows a failed refinement next to its field, then completes with the Zod-checked answer', async () => {
    const created = await create(delivery);
    const path = new URL(created.url).pathname;
    const headers = { 'x-test-user': 'alice' };
    const page = await request(app.getHttpServer()).get(path).set(headers).expect(200);
    expect(page.text).toContain('<input type="date" id="f0" name="date" required aria-required="true" aria-describedby="f0-help">');
    const post = async (date: string) => {
      const { token, cookie } = await csrfFor(app.getHttpServer(), path, headers);
      return request(app.getHttpServer())
        .post(path)
        .set({ ...headers, Cookie: cookie })
        .type('form')
        .send({ date, slot: 'pm', notes: '', action: 'submit', _csrf: token });
    };
    const refused = await post('2026-12-25');
    expect(refused.status).toBe(400);
    expect(refused.text).toContain('must not be the 25th (we are closed)');
    expect(refused.text).toMatch(/name="date"[^>]*aria-invalid="true"|aria-invalid="true"[^>]*name="date"/);
    expect((await service.getStatus(created.elicitationId))?.status).toBe('pending');
    const accepted = await post('2026-12-24');
    expect(accepted.status).toBe(200);
    expect(await service.getResult(created.elicitationId)).toEqual({ status: 'completed', data: { date: '2026-12-24', slot: 'pm' } });
  });
});
