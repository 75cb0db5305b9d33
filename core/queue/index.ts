/** Chooses the Queue adapter once at start-up: SQS when SQS_QUEUE_URL is set, in-process otherwise. */
import type { Config } from '../config.ts';
import { MemoryQueue } from './memory-queue.ts';
import type { Queue } from './queue.ts';

export async function openQueue(config: Config): Promise<Queue> {
  if (config.sqsQueueUrl) {
    const { SqsQueue } = await import('./sqs-queue.ts');
    return new SqsQueue({ queueUrl: config.sqsQueueUrl, endpoint: config.sqsEndpoint, region: config.awsRegion });
  }
  return new MemoryQueue();
}
