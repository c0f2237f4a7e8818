import { Transform } from 'class-transformer';
import { IsIn, IsNotEmpty, IsOptional, IsString, MaxLength } from 'class-validator';
import { MAX_API_KEY_LENGTH } from '../elicitation.constants.js';
import { PAGE_MESSAGES } from '../messages/page-messages.js';

const trim = ({ value }: { value: unknown }) => (typeof value === 'string' ? value.trim() : value);

/** The api-key page's form post (`application/x-www-form-urlencoded`). */
export class ApiKeySubmissionDto {
  @IsOptional()
  @IsIn(['submit', 'cancel'], { message: PAGE_MESSAGES.apiKey.unknownAction })
  action?: 'submit' | 'cancel';

  @Transform(trim)
  @IsString({ message: PAGE_MESSAGES.apiKey.enterKey })
  @IsNotEmpty({ message: PAGE_MESSAGES.apiKey.enterKey })
  @MaxLength(MAX_API_KEY_LENGTH, { message: PAGE_MESSAGES.apiKey.tooLong(MAX_API_KEY_LENGTH) })
  apiKey!: string;
}

/** The confirm page's form post. */
export class ConfirmSubmissionDto {
  @IsIn(['confirm', 'cancel'], { message: PAGE_MESSAGES.confirm.chooseAction })
  action!: 'confirm' | 'cancel';
}
