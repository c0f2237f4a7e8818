import { defineForm, type ToolElicitation } from 'nestjs-mcp-elicitation';

const addressForm = defineForm({
  type: 'object',
  properties: { street: { type: 'string' }, city: { type: 'string' } },
  required: ['street', 'city'],
});

export async function deployWithAddress(elicitation: ToolElicitation, app: string) {
  await elicitation.requestUrl({ kind: 'confirm', message: `Deploy ${app}?`, fallback: ['url', 'error'] });
  await elicitation.elicit('Your shipping address', addressForm, { fallback: ['form', 'model', 'link'] });
}
