import { Module } from '@nestjs/common';
import { AppController } from './app.controller';
import { AppService } from './app.service';
import { ConsentModule } from './consent.module';

@Module({
  imports: [ConsentModule],
  controllers: [AppController],
  providers: [AppService],
})
export class AppModule {}
