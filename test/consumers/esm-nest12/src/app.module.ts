import { Module } from '@nestjs/common';
import { ConsentModule } from './consent.module.js';

@Module({
  imports: [ConsentModule],
})
export class AppModule {}
