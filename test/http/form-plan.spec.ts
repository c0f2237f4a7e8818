/**
 * The hosted form's plan of a stored form (fields in order, control names, kinds, options, secrets, the compiled
 * validator, kept per distinct form) and the urlencoded post read into typed content (what a browser posts, and what
 * it cannot have posted, which is passed on for the validator to refuse).
 */
import { describe, expect, it } from '@jest/globals';
import { formPlanOf, fromDateTimeLocal, readSubmission, type FormPlan } from '../../src/http/form-plan.js';
import type { FormSchema } from '../../src/forms/form-schema.js';
import { errorOf } from '../support/error-of.js';

const SCHEMA: FormSchema = {
  type: 'object',
  properties: {
    name: { type: 'string', title: 'Your name', minLength: 2 },
    email: { type: 'string', format: 'email' },
    when: { type: 'string', format: 'date-time' },
    age: { type: 'integer', minimum: 0 },
    ratio: { type: 'number' },
    agree: { type: 'boolean' },
    colour: { type: 'string', enum: ['r', 'g'], enumNames: ['Red'] },
    size: { type: 'string', oneOf: [{ const: 's', title: 'Small' }] },
    tags: { type: 'array', items: { type: 'string', enum: ['a', 'b', 'c'] } },
    roles: { type: 'array', items: { anyOf: [{ const: 'admin', title: 'Admin' }] } },
    action: { type: 'string' },
    _hidden: { type: 'string' },
    'a[b]': { type: 'string' },
    token: { type: 'string' },
  },
  required: ['name', 'agree'],
};

const plan = (schema: FormSchema = SCHEMA, secretFields: unknown = ['token']): FormPlan => formPlanOf({ form: { schema, secretFields } });

const field = (p: FormPlan, name: string) => p.fields.find((f) => f.name === name)!;

describe('formPlanOf', () => {
  it('plans every field in schema order, with its kind, format, required and secret flags, and label', () => {
    const p = plan();
    expect(p.fields.map((f) => [f.name, f.index, f.kind, f.format, f.required, f.secret, f.label])).toEqual([
      ['name', 0, 'text', undefined, true, false, 'Your name'],
      ['email', 1, 'text', 'email', false, false, 'email'],
      ['when', 2, 'text', 'date-time', false, false, 'when'],
      ['age', 3, 'number', undefined, false, false, 'age'],
      ['ratio', 4, 'number', undefined, false, false, 'ratio'],
      ['agree', 5, 'boolean', undefined, true, false, 'agree'],
      ['colour', 6, 'select', undefined, false, false, 'colour'],
      ['size', 7, 'select', undefined, false, false, 'size'],
      ['tags', 8, 'multi', undefined, false, false, 'tags'],
      ['roles', 9, 'multi', undefined, false, false, 'roles'],
      ['action', 10, 'text', undefined, false, false, 'action'],
      ['_hidden', 11, 'text', undefined, false, false, '_hidden'],
      ['a[b]', 12, 'text', undefined, false, false, 'a[b]'],
      ['token', 13, 'text', undefined, false, true, 'token'],
    ]);
  });

  it('names a control after its field, except names a post cannot carry (action, a leading _, brackets): _f<index>', () => {
    const controls = Object.fromEntries(plan().fields.map((f) => [f.name, f.control]));
    expect(controls).toMatchObject({ name: 'name', action: '_f10', _hidden: '_f11', 'a[b]': '_f12', token: 'token' });
  });

  it('the options: enum values titled by enumNames (the value where none), oneOf and anyOf by title, items.enum by value', () => {
    const p = plan();
    expect(field(p, 'colour').options).toEqual([
      { value: 'r', title: 'Red' },
      { value: 'g', title: 'g' },
    ]);
    expect(field(p, 'size').options).toEqual([{ value: 's', title: 'Small' }]);
    expect(field(p, 'tags').options.map((o) => o.title)).toEqual(['a', 'b', 'c']);
    expect(field(p, 'roles').options).toEqual([{ value: 'admin', title: 'Admin' }]);
    expect(field(p, 'name').options).toEqual([]);
  });

  it("secret fields: the form's and the metadata's own list, strings only", () => {
    const p = formPlanOf({ form: { schema: SCHEMA, secretFields: ['token', 42] }, secretFields: ['email', null] });
    expect(p.fields.filter((f) => f.secret).map((f) => f.name)).toEqual(['email', 'token']);
    expect(plan(SCHEMA, 'token').fields.some((f) => f.secret)).toBe(false);
  });

  it('compiles the validator of the form', () => {
    const p = plan();
    expect(p.validate({ name: 'Al', agree: true })).toEqual({ ok: true, value: { name: 'Al', agree: true } });
    const refused = p.validate({ name: 'A' });
    expect(refused.ok).toBe(false);
    if (!refused.ok) expect(refused.issues.map((i) => i.field).sort()).toEqual(['agree', 'name']);
  });

  it('keeps one plan per distinct form (schema and secret fields)', () => {
    const schema: FormSchema = { type: 'object', properties: { x: { type: 'string' } } };
    const first = plan(schema, []);
    expect(plan(JSON.parse(JSON.stringify(schema)) as FormSchema, [])).toBe(first);
    expect(plan(schema, ['x'])).not.toBe(first);
    expect(plan(schema, ['x']).fields[0].secret).toBe(true);
    expect(Object.isFrozen(first.fields)).toBe(true);
  });

  it.each([
    ['no form', {}],
    ['a form without a schema', { form: {} }],
    ['a schema without properties', { form: { schema: { type: 'object' } } }],
    ['properties that are not an object', { form: { schema: { type: 'object', properties: 'x' } } }],
  ])('refuses metadata with %s', (_label, metadata) => {
    expect(() => formPlanOf(metadata)).toThrow('a form elicitation has no form schema in its metadata');
  });

  it('refuses a field type the page cannot render, naming it', () => {
    const error = errorOf(() => plan({ type: 'object', properties: { o: { type: 'object' } as never } }, []));
    expect(error.message).toContain('cannot render a field of type "object"');
  });
});

describe('readSubmission', () => {
  const p = plan();

  it('reads what the page posts into typed content, and keeps the input to show again (never a secret)', () => {
    const { content, kept } = readSubmission(p, {
      name: 'Al',
      email: ' al@example.com ',
      when: '2025-01-02T03:04',
      age: ' 42 ',
      ratio: '.5',
      agree: ['false', 'true'],
      colour: 'r',
      tags: ['', 'a', 'c'],
      roles: '',
      _f10: 'go',
      token: 'sk-live-123',
      unknown: 'ignored',
    });
    expect(content).toEqual({
      name: 'Al',
      email: 'al@example.com',
      when: '2025-01-02T03:04:00Z',
      age: 42,
      ratio: 0.5,
      agree: true,
      colour: 'r',
      tags: ['a', 'c'],
      roles: [],
      action: 'go',
      token: 'sk-live-123',
    });
    expect(kept).toEqual({
      name: 'Al',
      email: ' al@example.com ',
      when: '2025-01-02T03:04',
      age: ' 42 ',
      ratio: '.5',
      agree: true,
      colour: 'r',
      tags: ['a', 'c'],
      roles: [],
      action: 'go',
    });
    expect(JSON.stringify(kept)).not.toContain('sk-live-123');
  });

  it('an unchecked box posts only its hidden false: false', () => {
    expect(readSubmission(p, { agree: 'false' }).content).toEqual({ agree: false });
  });

  it('an empty input is an absent field (the validator applies the default or says required); a secret only when empty', () => {
    const read = readSubmission(p, { name: '   ', age: '', colour: '', token: '  ' });
    expect(read.content).toEqual({ token: '  ' });
    expect(read.kept).toEqual({ name: '   ', age: '', colour: '' });
  });

  it('passes on what the page cannot have sent, for the validator to refuse, and keeps none of it', () => {
    const read = readSubmission(p, {
      name: ['a', 'b'],
      email: { toString: 'x' },
      age: '12abc',
      agree: 'yes',
      tags: ['a', { x: 1 }],
    });
    expect(read.content).toEqual({ name: ['a', 'b'], email: { toString: 'x' }, age: '12abc', agree: 'yes', tags: ['a', { x: 1 }] });
    expect(read.kept).toMatchObject({ age: '12abc' });
    for (const name of ['name', 'email', 'agree']) expect(read.kept).not.toHaveProperty(name);
    const validated = p.validate(read.content);
    expect(validated.ok).toBe(false);
  });

  it('reads the post by control name only: a field posted under its own name when it posts as _f<index> is ignored', () => {
    expect(readSubmission(p, { action: 'x', _hidden: 'y', 'a[b]': 'z' }).content).toEqual({});
    expect(readSubmission(p, { _f11: 'y', _f12: 'z' }).content).toEqual({ _hidden: 'y', 'a[b]': 'z' });
  });

  it('reads own keys only (nothing from the prototype)', () => {
    const body = Object.create({ name: 'inherited' }) as Record<string, unknown>;
    expect(readSubmission(p, body).content).toEqual({});
  });

  it.each([
    ['1e3', 1000],
    ['-0.25', -0.25],
    ['+7', 7],
    ['0x10', '0x10'],
    ['Infinity', 'Infinity'],
    ['1,5', '1,5'],
  ])('a number field posted %j reads as %j', (posted, read) => {
    expect(readSubmission(p, { ratio: posted }).content).toEqual({ ratio: read });
  });
});

describe('fromDateTimeLocal', () => {
  it.each([
    ['2025-01-02T03:04', '2025-01-02T03:04:00Z'],
    ['2025-01-02 03:04', '2025-01-02T03:04:00Z'],
    ['2025-01-02T03:04:05', '2025-01-02T03:04:05Z'],
    ['2025-01-02T03:04:05.123', '2025-01-02T03:04:05.123Z'],
    ['2025-01-02T03:04:05Z', '2025-01-02T03:04:05Z'],
    ['2025-01-02', '2025-01-02'],
    ['soon', 'soon'],
  ])('%j → %j', (value, iso) => {
    expect(fromDateTimeLocal(value)).toBe(iso);
  });
});
