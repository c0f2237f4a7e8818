import { Injectable, Module } from '@nestjs/common';
import { ConfigModule, ConfigService } from '@nestjs/config';
import { ElicitationModule, type ElicitationModuleOptions, type ElicitationOptionsFactory } from 'nestjs-mcp-elicitation';

@Module({
  imports: [
    ConfigModule.forRoot(),
    ElicitationModule.forRootAsync({
      imports: [ConfigModule],
      inject: [ConfigService],
      useFactory: (config: ConfigService) => ({
        baseUrl: config.getOrThrow<string>('PUBLIC_URL'),
        ttlMs: config.get('ELICITATION_TTL_MS', 600_000), // a string of digits from the environment is fine
        resolvePageUser: (req) => req.session?.userId,
      }),
    }),
  ],
})
export class AppModule {}

// Or a class implementing ElicitationOptionsFactory (annotate the return type: `implements` does not type it)
@Injectable()
export class ElicitationConfig implements ElicitationOptionsFactory {
  constructor(private readonly config: ConfigService) {}

  createElicitationOptions(): ElicitationModuleOptions {
    return { baseUrl: this.config.getOrThrow<string>('PUBLIC_URL'), resolvePageUser: (req) => req.user?.id };
  }
}

@Module({
  imports: [ConfigModule.forRoot(), ElicitationModule.forRootAsync({ imports: [ConfigModule], useClass: ElicitationConfig })],
})
export class AppModuleWithClass {}
