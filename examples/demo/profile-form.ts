import { defineForm } from '../../src/index.js';

/** The demo's `configure-profile` form: every field kind MCP form mode allows. */
export const profileForm = defineForm({
  type: 'object',
  properties: {
    displayName: { type: 'string', title: 'Display name', description: 'Shown to your teammates', minLength: 1, maxLength: 40 },
    email: { type: 'string', title: 'E-mail', format: 'email' },
    homepage: { type: 'string', title: 'Homepage', format: 'uri' },
    birthday: { type: 'string', title: 'Birthday', format: 'date' },
    availableFrom: { type: 'string', title: 'Available from', format: 'date-time' },
    age: { type: 'integer', title: 'Age', minimum: 13, maximum: 120 },
    hoursPerWeek: { type: 'number', title: 'Hours per week', minimum: 0, maximum: 80, default: 40 },
    newsletter: { type: 'boolean', title: 'Send me the newsletter', default: false },
    theme: { type: 'string', title: 'Theme', enum: ['light', 'dark', 'system'], default: 'system' },
    language: { type: 'string', title: 'Language (legacy enumNames)', enum: ['en', 'fr'], enumNames: ['English', 'Français'] },
    plan: {
      type: 'string',
      title: 'Plan',
      oneOf: [
        { const: 'free', title: 'Free' },
        { const: 'team', title: 'Team' },
        { const: 'enterprise', title: 'Enterprise' },
      ],
      default: 'free',
    },
    interests: { type: 'array', title: 'Interests', items: { type: 'string', enum: ['ai', 'web', 'ops'] }, minItems: 1, maxItems: 2 },
    roles: {
      type: 'array',
      title: 'Roles',
      items: {
        anyOf: [
          { const: 'dev', title: 'Developer' },
          { const: 'pm', title: 'Product manager' },
          { const: 'ops', title: 'Operations' },
        ],
      },
      default: ['dev'],
    },
  },
  required: ['displayName', 'email', 'interests'],
});
