import { defineForm, FormField, formFromClass, type ToolElicitation } from 'nestjs-mcp-elicitation';
import { IsEmail, IsInt, IsOptional, Min, MinLength } from 'class-validator';

// A plain schema (the spec's restricted requestedSchema):
export const profile = defineForm({
  type: 'object',
  properties: {
    name: { type: 'string', title: 'Name', minLength: 1 },
    email: { type: 'string', format: 'email' },
    plan: {
      type: 'string',
      oneOf: [
        { const: 'free', title: 'Free' },
        { const: 'pro', title: 'Pro' },
      ],
      default: 'free',
    },
    tags: { type: 'array', items: { type: 'string', enum: ['a', 'b'] }, maxItems: 2 },
  },
  required: ['name', 'email'],
});
// answers: { name: string; email: string; plan?: 'free' | 'pro'; tags?: ('a' | 'b')[] }

// Or a class, building on class-validator metadata:
export class Profile {
  @FormField({ title: 'Name' }) @MinLength(1) name!: string;
  @FormField() @IsEmail() email!: string;
  @FormField({ default: 18 }) @IsOptional() @IsInt() @Min(0) age?: number;
}
export const profileForm = formFromClass(Profile); // answers are Profile

// Inside a tool (the handler's `elicitation`, see "MCP binding"):
export async function askProfile(elicitation: ToolElicitation): Promise<string | undefined> {
  const answer = await elicitation.elicit('Complete your profile', profile);
  if (answer.action === 'accept') return answer.content.email; // typed; 'decline' and 'cancel' carry nothing
}
