import { Injectable, Logger, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { InjectOperationsOptions, type ElicitationOperationsOptions } from '../options/operations-options.js';
import { ElicitationService } from '../lifecycle/elicitation.service.js';

/**
 * Expires overdue elicitations every `cleanupIntervalMs` (publishing `expired` for each) and forgets
 * records past their retention. Starts on application bootstrap, stops when the app starts to shut down,
 * never keeps the process alive, and never lets a failed sweep escape.
 */
@Injectable()
export class ElicitationCleanupScheduler implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger('ElicitationCleanup');
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<number> | undefined;

  constructor(
    @InjectOperationsOptions() private readonly options: ElicitationOperationsOptions,
    private readonly service: ElicitationService,
  ) {}

  /** True while the periodic sweep is scheduled. */
  get isRunning(): boolean {
    return this.timer !== undefined;
  }

  onApplicationBootstrap(): void {
    if (this.options.cleanupIntervalMs > 0) this.start();
  }

  /**
   * Stops the timer and lets a sweep in progress finish, when the app starts to shut down: at module destroy,
   * not at application shutdown, because the store closes its connections at module destroy (a Redis store it
   * created) and the HTTP server may take its time to close before application shutdown comes.
   */
  async onModuleDestroy(): Promise<void> {
    this.stop();
    await this.running;
  }

  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => void this.sweep(), this.options.cleanupIntervalMs);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  /**
   * Runs one sweep now (tests drive it with a chosen `now` instead of sleeping). Overlapping calls
   * share the sweep in progress. Resolves the number of records expired; a failure is logged and
   * resolves 0.
   */
  sweep(now: number = Date.now()): Promise<number> {
    this.running ??= this.service
      .sweep(now)
      .catch((error: unknown) => {
        this.logger.error('Elicitation expiry sweep failed', error instanceof Error ? error.stack : String(error));
        return 0;
      })
      .finally(() => {
        this.running = undefined;
      });
    return this.running;
  }
}
