import { NotFoundException } from '@nestjs/common';

/** HTTP 404 for an unknown, malformed or forgotten elicitation id. */
export class ElicitationNotFoundException extends NotFoundException {
  constructor() {
    super('This elicitation was not found. It may have expired or the link may be wrong.');
  }
}
