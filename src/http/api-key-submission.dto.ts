import { Transform } from 'class-transformer';
import { IsIn, IsNotEmpty, IsOptional, IsString, MaxLength } from 'class-validator';
import { MAX_API_KEY_LENGTH } from '../elicitation.constants.js';

const trim = ({ value }: { value: unknown }) => (typeof value === 'string' ? value.trim() : value);

/** The api-key page's form post (`application/x-www-form-urlencoded`). */
export class ApiKeySubmissionDto {
  @IsOptional()
  @IsIn(['submit', 'cancel'], { message: 'Unknown action.' })
  action?: 'submit' | 'cancel';

  @Transform(trim)
  @IsString({ message: 'Enter the API key.' })
  @IsNotEmpty({ message: 'Enter the API key.' })
  @MaxLength(MAX_API_KEY_LENGTH, { message: `The API key is longer than ${MAX_API_KEY_LENGTH} characters.` })
  apiKey!: string;
}

/** The confirm page's form post. */
export class ConfirmSubmissionDto {
  @IsIn(['confirm', 'cancel'], { message: 'Choose confirm or cancel.' })
  action!: 'confirm' | 'cancel';
}
