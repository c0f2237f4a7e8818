import { Controller, Get, Module } from '@nestjs/common';
import { HealthCheck, HealthCheckService, TerminusModule } from '@nestjs/terminus';
import { ElicitationModule } from 'nestjs-mcp-elicitation';
import { ElicitationHealthIndicator } from 'nestjs-mcp-elicitation/terminus';

@Controller('health')
export class HealthController {
  constructor(
    private readonly health: HealthCheckService,
    private readonly elicitation: ElicitationHealthIndicator,
  ) {}

  @Get()
  @HealthCheck()
  check() {
    // 200 while the store answers its ping within a second and events reach the other instances; else 503.
    return this.health.check([() => this.elicitation.isHealthy('elicitation', { timeoutMs: 1_000 })]);
  }
}

@Module({
  // Where ElicitationModule's exports are visible: provide the indicator beside it (or make it isGlobal).
  imports: [TerminusModule, ElicitationModule.forRoot({ baseUrl: 'https://app.example.com' })],
  controllers: [HealthController],
  providers: [ElicitationHealthIndicator],
})
export class HealthModule {}
