import { defineForm, type ToolElicitation } from 'nestjs-mcp-elicitation';
import { z } from 'zod';

export const booking = defineForm(
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
// answers: { guests: number; room: 'single' | 'double'; arrival: string; nights: number; extras?: ('breakfast' | 'parking')[] }

export async function book(elicitation: ToolElicitation) {
  const answer = await elicitation.elicit('Book a room', booking); // a z.object(...) may be passed as it is, too
  return answer.action === 'accept' ? `${answer.content.nights} nights from ${answer.content.arrival}` : 'No booking';
}
