import { GoneException } from '@nestjs/common';

/** HTTP 410 for a page of an expired elicitation. */
export class ElicitationExpiredException extends GoneException {
  constructor() {
    super('This request has expired. Ask the assistant to start again.');
  }
}
