import { Injectable } from '@nestjs/common';
import { HealthIndicatorService } from '@nestjs/terminus';
import { ElicitationStore } from 'nestjs-mcp-elicitation';

@Injectable()
export class ElicitationHealth {
  constructor(
    private readonly store: ElicitationStore,
    private readonly health: HealthIndicatorService,
  ) {}

  async check(key = 'elicitation') {
    const indicator = this.health.check(key);
    try {
      await this.store.ping?.();
      return indicator.up();
    } catch (error) {
      return indicator.down({ message: (error as Error).message });
    }
  }
}
