import { Module } from '@nestjs/common';
import { ElicitationModule, type ElicitationAuditRecord } from 'nestjs-mcp-elicitation';

/** One JSON line per record through Nest's Logger (context `ElicitationAudit`). */
@Module({ imports: [ElicitationModule.forRoot({ baseUrl: 'https://mcp.example.com', audit: 'log' })] })
export class AuditToLogModule {}

/** Or every record to a sink of your own (a SIEM, a table): it never holds an answer or a secret. */
const sink = (record: ElicitationAuditRecord): void => {
  if (record.outcome === 'failure') console.warn(`audit: ${record.event} (${record.reason}) from ${record.ip ?? 'no request'}`);
};

@Module({ imports: [ElicitationModule.forRoot({ baseUrl: 'https://mcp.example.com', audit: sink })] })
export class AuditToSinkModule {}
