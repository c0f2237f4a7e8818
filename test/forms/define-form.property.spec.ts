import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { defineForm } from '../../src/forms/define-form.js';
import type { FieldSchema, FormSchema } from '../../src/forms/form-schema.js';
import { optionsOf } from '../../src/forms/form-validator.js';
import { EVERY_KIND } from './define-form.spec.js';

const form = defineForm(EVERY_KIND);
const schema = EVERY_KIND as unknown as FormSchema;
const RUNS = { seed: 20261122, numRuns: 300 };

const pad = (n: number, w = 2) => String(n).padStart(w, '0');
const dateArb = fc.date({ min: new Date('1900-01-01T00:00:00Z'), max: new Date('2100-12-31T23:59:59Z'), noInvalidDate: true });

/** Values that satisfy one field. */
function validValue(field: FieldSchema): fc.Arbitrary<unknown> {
  const options = optionsOf(field);
  if (field.type === 'array') {
    const { minItems = 0, maxItems = options!.length } = field;
    return fc.subarray(options!, { minLength: minItems, maxLength: Math.min(maxItems, options!.length) });
  }
  if (options) return fc.constantFrom(...options);
  if (field.type === 'boolean') return fc.boolean();
  if (field.type === 'integer') return fc.integer({ min: field.minimum ?? -1e6, max: field.maximum ?? 1e6 });
  if (field.type === 'number')
    return fc.double({ min: field.minimum ?? -1e6, max: field.maximum ?? 1e6, noNaN: true, noDefaultInfinity: true });
  const f = field as { format?: string; minLength?: number; maxLength?: number };
  switch (f.format) {
    case 'email':
      return fc
        .tuple(fc.stringMatching(/^[a-z0-9._-]{1,20}$/), fc.stringMatching(/^[a-z0-9-]{1,20}$/), fc.stringMatching(/^[a-z]{2,6}$/))
        .map(([u, d, t]) => `${u}@${d}.${t}`);
    case 'uri':
      return fc.webUrl();
    case 'date':
      return dateArb.map((d) => `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}`);
    case 'date-time':
      return dateArb.map((d) => d.toISOString());
    default:
      return fc.string({ minLength: f.minLength ?? 0, maxLength: f.maxLength ?? 100 });
  }
}

const required = new Set(schema.required ?? []);
const validContent = fc.record(Object.fromEntries(Object.entries(schema.properties).map(([name, field]) => [name, validValue(field)])), {
  requiredKeys: [...required],
});

/** Mutations that always make an answer invalid. */
const mutations: Array<[string, (c: Record<string, unknown>) => Record<string, unknown>]> = [
  [
    'drops a required field',
    (c) => {
      const { name, ...rest } = c;
      void name;
      return rest;
    },
  ],
  ['adds an unknown key', (c) => ({ ...c, isAdmin: true })],
  ['turns a number into text', (c) => ({ ...c, age: String(c.age) })],
  ['goes below a minimum', (c) => ({ ...c, age: -1 })],
  ['goes above a maximum', (c) => ({ ...c, height: 9 })],
  ['breaks an e-mail', (c) => ({ ...c, email: String(c.email).replace('@', ' at ') })],
  ['picks an option not offered', (c) => ({ ...c, size: 'xxl' })],
  ['adds a multi-select item not offered', (c) => ({ ...c, tags: ['a', 'zz'] })],
  ['exceeds maxItems', (c) => ({ ...c, tags: ['a', 'b', 'c'] })],
  ['makes a boolean a string', (c) => ({ ...c, newsletter: 'true' })],
  ['gives a fraction to an integer', (c) => ({ ...c, age: 1.5 })],
  ['breaks a date', (c) => ({ ...c, birthday: '2021-13-01' })],
];

describe('form validation properties (fast-check, fixed seed)', () => {
  it('accepts every generated valid answer, and keeps its values', () => {
    fc.assert(
      fc.property(validContent, (content) => {
        const result = form.validate(content);
        if (!result.ok) throw new Error(JSON.stringify(result.issues));
        for (const [k, v] of Object.entries(content)) expect(result.value[k as keyof typeof result.value]).toEqual(v);
      }),
      RUNS,
    );
  });

  it.each(mutations)('refuses every answer that %s', (_, mutate) => {
    fc.assert(
      fc.property(validContent, (content) => {
        expect(form.validate(mutate(content)).ok).toBe(false);
      }),
      RUNS,
    );
  });

  it('never throws on arbitrary input', () => {
    fc.assert(
      fc.property(fc.anything(), (value) => {
        const result = form.validate(value);
        expect(typeof result.ok).toBe('boolean');
      }),
      RUNS,
    );
  });
});
