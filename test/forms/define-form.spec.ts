import { describe, expect, it } from '@jest/globals';
import { ArrayMaxSize, IsEmail, IsIn, IsInt, IsOptional, IsUrl, Max, MaxLength, Min, MinLength } from 'class-validator';
import { ElicitationValidationError } from '../../src/errors/elicitation-validation.error.js';
import { FormSchemaError } from '../../src/errors/form-schema.error.js';
import { defineForm } from '../../src/forms/define-form.js';
import { FormField, formFromClass } from '../../src/forms/form-decorators.js';
import type { FormSchema } from '../../src/forms/form-schema.js';

/** Every field kind the spec allows. */
export const EVERY_KIND = {
  type: 'object',
  properties: {
    name: { type: 'string', title: 'Name', description: 'Your full name', minLength: 1, maxLength: 50 },
    email: { type: 'string', format: 'email', title: 'E-mail' },
    homepage: { type: 'string', format: 'uri' },
    birthday: { type: 'string', format: 'date' },
    meeting: { type: 'string', format: 'date-time' },
    height: { type: 'number', minimum: 0.5, maximum: 2.5, default: 1.7 },
    age: { type: 'integer', minimum: 0, maximum: 150 },
    newsletter: { type: 'boolean', default: false },
    size: { type: 'string', enum: ['s', 'm', 'l'], default: 'm' },
    legacyColor: { type: 'string', enum: ['r', 'g'], enumNames: ['Red', 'Green'] },
    plan: {
      type: 'string',
      oneOf: [
        { const: 'free', title: 'Free' },
        { const: 'pro', title: 'Pro' },
      ],
      default: 'free',
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
  },
  required: ['name', 'email', 'age', 'tags'],
} as const;

const VALID = { name: 'Mona', email: 'mona@example.com', age: 30, tags: ['a'] };

describe('defineForm: every schema kind', () => {
  const form = defineForm(EVERY_KIND);

  it('accepts valid content, applying defaults for missing optional fields', () => {
    const value = form.parse({ ...VALID, homepage: 'https://mona.dev', birthday: '1990-02-28', meeting: '2026-11-22T10:00:00Z' });
    expect(value).toEqual({
      ...VALID,
      homepage: 'https://mona.dev',
      birthday: '1990-02-28',
      meeting: '2026-11-22T10:00:00Z',
      height: 1.7,
      newsletter: false,
      size: 'm',
      plan: 'free',
      roles: ['dev'],
    });
    // The type follows from the declaration.
    const name: string = value.name;
    const tags: ('a' | 'b' | 'c')[] = value.tags;
    const plan: 'free' | 'pro' | undefined = value.plan;
    expect([name, tags, plan]).toBeDefined();
  });

  it('applies no defaults when asked not to', () => {
    const raw = defineForm(EVERY_KIND, { applyDefaults: false });
    expect(raw.parse(VALID)).toEqual(VALID);
  });

  it.each([
    ['missing required', { email: 'm@e.io', age: 1, tags: ['a'] }, 'name', 'is required'],
    ['an unknown key', { ...VALID, admin: true }, 'admin', 'is not a field of this form'],
    ['a wrong type', { ...VALID, age: '30' }, 'age', 'must be a number'],
    ['a fraction for an integer', { ...VALID, age: 30.5 }, 'age', 'must be a whole number'],
    ['below the minimum', { ...VALID, age: -1 }, 'age', 'must be at least 0'],
    ['above the maximum', { ...VALID, height: 3 }, 'height', 'must be at most 2.5'],
    ['a bad e-mail', { ...VALID, email: 'not-an-email' }, 'email', 'must be an e-mail address'],
    ['a bad URL', { ...VALID, homepage: 'mona.dev' }, 'homepage', 'must be a URL'],
    ['a bad date', { ...VALID, birthday: '1990-02-30' }, 'birthday', 'must be a date (YYYY-MM-DD)'],
    [
      'a date-time without zone',
      { ...VALID, meeting: '2026-11-22T10:00:00' },
      'meeting',
      'must be a date and time (ISO 8601 with a time zone)',
    ],
    ['too short text', { ...VALID, name: '' }, 'name', 'must be at least 1 character(s)'],
    ['too long text', { ...VALID, name: 'x'.repeat(51) }, 'name', 'must be at most 50 character(s)'],
    ['a bad enum value', { ...VALID, size: 'xl' }, 'size', 'must be one of the offered options'],
    ['a bad titled option', { ...VALID, plan: 'Pro' }, 'plan', 'must be one of the offered options'],
    ['a bad multi option', { ...VALID, tags: ['z'] }, 'tags', 'contains an option that is not offered'],
    ['too many items', { ...VALID, tags: ['a', 'b', 'c'] }, 'tags', 'allows at most 2 option(s)'],
    ['too few items', { ...VALID, tags: [] }, 'tags', 'needs at least 1 option(s)'],
    ['a duplicate item', { ...VALID, tags: ['a', 'a'] }, 'tags', 'contains an option twice'],
    ['a non-boolean', { ...VALID, newsletter: 'yes' }, 'newsletter', 'must be true or false'],
  ])('refuses %s with a field issue', (_, content, field, message) => {
    const result = form.validate(content);
    expect(result.ok).toBe(false);
    expect(!result.ok && result.issues).toContainEqual({ field, message });
    expect(() => form.parse(content)).toThrow(ElicitationValidationError);
  });

  it('refuses an accept without content, and non-objects', () => {
    for (const content of [undefined, null, 'x', [], 42]) {
      expect(form.validate(content)).toEqual({ ok: false, issues: [{ field: '(answer)', message: 'must be an object of field values' }] });
    }
  });

  it('lists every problem, never the submitted values', () => {
    try {
      form.parse({ email: 'secret-value-xyz', age: 'old', tags: ['q'], extra: 'secret-2' });
      throw new Error('expected a validation error');
    } catch (error) {
      const e = error as ElicitationValidationError;
      expect(e.issues.map((i) => i.field).sort()).toEqual(['age', 'email', 'extra', 'name', 'tags']);
      expect(e.message).not.toMatch(/secret-value-xyz|secret-2/);
    }
  });
});

describe('lint at declaration', () => {
  const bad =
    (properties: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
    () =>
      defineForm({ type: 'object', properties, ...extra } as unknown as FormSchema);

  it.each([
    ['a nested object', { address: { type: 'object', properties: {} } }, 'address', /nested object/],
    ['an array of objects', { items: { type: 'array', items: { type: 'object', properties: {} } } }, 'items', /list of objects/],
    ['pattern', { code: { type: 'string', pattern: '^[0-9]+$' } }, 'code', /"pattern"/],
    ['an unknown format', { when: { type: 'string', format: 'time' } }, 'when', /format "time"/],
    [
      'a default outside its enum',
      { size: { type: 'string', enum: ['s'], default: 'm' } },
      'size',
      /default that is not one of its options/,
    ],
    ['a default outside its bounds', { n: { type: 'integer', minimum: 1, maximum: 3, default: 5 } }, 'n', /default outside its bounds/],
    ['a default of the wrong type', { b: { type: 'boolean', default: 'yes' } }, 'b', /default that is not true or false/],
    ['a bad default e-mail', { e: { type: 'string', format: 'email', default: 'x' } }, 'e', /not a valid email/],
    ['minimum above maximum', { n: { type: 'number', minimum: 5, maximum: 1 } }, 'n', /minimum above maximum/],
    ['enumNames not matching', { c: { type: 'string', enum: ['a', 'b'], enumNames: ['A'] } }, 'c', /enumNames/],
    [
      'duplicate titled options',
      {
        p: {
          type: 'string',
          oneOf: [
            { const: 'a', title: 'A' },
            { const: 'a', title: 'B' },
          ],
        },
      },
      'p',
      /twice/,
    ],
    ['a free-value list', { tags: { type: 'array', items: { type: 'string' } } }, 'tags', /multi-selects/],
    ['an unknown type', { x: { type: 'null' } }, 'x', /type "null"/],
    ['a secret-looking field', { password: { type: 'string' } }, 'password', /forbids asking for secrets in form mode/],
    ['an API key by title', { k: { type: 'string', title: 'API key' } }, 'k', /looks like a secret/],
    ['a card number', { cardNumber: { type: 'string' } }, 'cardNumber', /secret/],
  ])('refuses %s, naming the field', (_, properties, field, message) => {
    try {
      bad(properties)();
      throw new Error('expected a FormSchemaError');
    } catch (error) {
      expect(error).toBeInstanceOf(FormSchemaError);
      expect((error as FormSchemaError).field).toBe(field);
      expect((error as Error).message).toMatch(message);
    }
  });

  it('refuses a required field that does not exist, and an empty schema', () => {
    expect(bad({ a: { type: 'string' } }, { required: ['b'] })).toThrow(/"b" is required but is not a field/);
    expect(bad({})).toThrow(/has no fields/);
    expect(() => defineForm({ type: 'object', properties: { a: { type: 'string' } }, additionalProperties: false } as never)).toThrow(
      /additionalProperties/,
    );
  });

  it('lets a secret-looking field through when declared secret or cleared', () => {
    expect(
      defineForm({ type: 'object', properties: { password: { type: 'string' } } }, { secretFields: ['password'] }).secretFields,
    ).toEqual(['password']);
    expect(() =>
      defineForm({ type: 'object', properties: { tokenCount: { type: 'integer' } } }, { notSecret: ['tokenCount'] }),
    ).not.toThrow();
  });
});

describe('formFromClass: a NestJS-native declaration', () => {
  class Profile {
    @FormField({ title: 'Name', description: 'As on your passport' })
    @MinLength(1)
    @MaxLength(40)
    name!: string;

    @FormField({ title: 'E-mail' })
    @IsEmail()
    email!: string;

    @FormField()
    @IsOptional()
    @IsUrl()
    homepage?: string;

    @FormField({ default: 18 })
    @IsOptional()
    @IsInt()
    @Min(0)
    @Max(150)
    age?: number;

    @FormField({ title: 'Newsletter' })
    @IsOptional()
    subscribe?: boolean;

    @FormField({
      options: [
        { const: 'free', title: 'Free' },
        { const: 'pro', title: 'Pro' },
      ],
    })
    plan!: string;

    @FormField({ multiple: true })
    @IsIn(['a', 'b', 'c'])
    @ArrayMaxSize(2)
    @IsOptional()
    tags?: string[];
  }

  const form = formFromClass(Profile);

  it('builds the restricted schema from the decorators', () => {
    expect(form.schema).toEqual({
      type: 'object',
      properties: {
        name: { title: 'Name', description: 'As on your passport', type: 'string', minLength: 1, maxLength: 40 },
        email: { title: 'E-mail', type: 'string', format: 'email' },
        homepage: { type: 'string', format: 'uri' },
        age: { type: 'integer', minimum: 0, maximum: 150, default: 18 },
        subscribe: { title: 'Newsletter', type: 'boolean' },
        plan: {
          type: 'string',
          oneOf: [
            { const: 'free', title: 'Free' },
            { const: 'pro', title: 'Pro' },
          ],
        },
        tags: { type: 'array', items: { type: 'string', enum: ['a', 'b', 'c'] }, maxItems: 2 },
      },
      required: ['name', 'email', 'plan'],
    });
  });

  it('validates answers and types them as the class', () => {
    const value: Profile = form.parse({ name: 'Mona', email: 'm@e.io', plan: 'pro' });
    expect(value).toEqual({ name: 'Mona', email: 'm@e.io', plan: 'pro', age: 18 });
    expect(form.validate({ name: 'Mona', email: 'm@e.io', plan: 'gold' }).ok).toBe(false);
  });

  it('lints class declarations too', () => {
    class Login {
      @FormField() password!: string;
    }
    expect(() => formFromClass(Login)).toThrow(/password.*secret/);
    class Empty {}
    expect(() => formFromClass(Empty)).toThrow(/no @FormField/);
  });
});
